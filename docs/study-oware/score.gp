# Written by 'sowzero study'; run as: gnuplot -c score.gp OUT.png DATA TITLE COUNT
set terminal pngcairo size 1000,560 noenhanced
set output ARG1
set title ARG3
n = ARG4 + 0
set grid y
set key outside right
set yrange [0:1]
set xrange [-0.5:n-0.5]
set xtics rotate by -25
set ylabel "first player's score (95% interval)"
plot ARG2 using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.5 lw 2 title 'first player', 0.5 with lines dt 2 lc rgb 'gray40' title 'even'
