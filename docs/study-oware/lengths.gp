# Written by 'sowzero study'; run as: gnuplot -c lengths.gp OUT.png DATA TITLE COUNT
set terminal pngcairo size 1000,560 noenhanced
set output ARG1
set title ARG3
n = ARG4 + 0
set grid y
set key outside right
set terminal pngcairo size 1000,900 noenhanced
set output ARG1
set multiplot layout 2,1 title ARG3
unset title
set xlabel 'game length (plies)'
set ylabel 'share of games'
plot for [i=3:n+2] ARG2 using 1:i with histeps lw 2 title columnheader(i)
set ylabel 'share of games at most this long'
set yrange [0:1]
plot for [i=n+3:2*n+2] ARG2 using 2:i with lines lw 2 title columnheader(i)
unset multiplot
