# Written by 'sowzero study'; run as: gnuplot -c openings.gp OUT.png DATA TITLE COUNT
set terminal pngcairo size 1000,560 noenhanced
set output ARG1
set title ARG3
n = ARG4 + 0
set grid y
set key outside right
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set yrange [0:*]
set xlabel "the first player's first move"
set ylabel 'share of games'
plot for [i=2:n+1] ARG2 using i:xtic(1) title columnheader(i)
