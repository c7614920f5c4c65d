# Written by 'sowzero study'; run as: gnuplot -c endings.gp OUT.png DATA TITLE COUNT
set terminal pngcairo size 1000,560 noenhanced
set output ARG1
set title ARG3
n = ARG4 + 0
set grid y
set key outside right
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.6
set yrange [0:1]
set xtics rotate by -25
set ylabel 'share of games'
plot for [i=2:n+1] ARG2 using i:xtic(1) title columnheader(i)
