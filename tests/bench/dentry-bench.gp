# SPDX-License-Identifier: GPL-2.0
#
# dentry-bench.gp: the dentry hash's speed, B (rosebush) against A (6.12's
# hlist_bl table sized for each machine), against the number of dentries,
# one line per machine size, for each workload, from the CSV that
# dentry-bench writes (scripts/bench.sh dentry runs both):
#
#   gnuplot -e "csv='dentry.csv'; png='dentry.png'" dentry-bench.gp
#
# B's speedup is hlist_bl's median ns per lookup over rosebush's: above
# 1, rosebush is faster.  A dcache larger than half a machine is not
# measured on it, and has no point.

set datafile separator ','
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
	set terminal pngcairo size 1400,1000 noenhanced
} else {
	set terminal png size 1400,1000 noenhanced
}
set output png
set logscale x
set format x '1e%T'
set xlabel 'dentries in the dcache'
set ylabel "B's speedup: hlist_bl ns / rosebush ns"
set grid
set key top right

machines = '1G 4G 24G 256G 1T'
workloads = 'walk hit hot miss'

set multiplot layout 2,2 title 'dentry-bench: rosebush (B) against hlist_bl (A) with its table sized for each machine; above 1, B is faster'
do for [w in workloads] {
	set title w
	plot for [m in machines] csv skip 1 \
		using ((strcol(1) eq w && strcol(3) eq m) ? $2 : NaN):6 \
		with linespoints title m, 1 with lines lc 'black' dt 2 notitle
}
unset multiplot
