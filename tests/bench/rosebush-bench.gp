# SPDX-License-Identifier: GPL-2.0
#
# rosebush-bench.gp: median ns/op of the lookup and mix workloads against
# the number of entries, one line per structure, from the CSV that
# rosebush-bench writes (scripts/bench.sh runs both): the throughput-bound
# lookups and the mix on 1 and 2 threads, then the latency-bound lookups:
#
#   gnuplot -e "csv='bench.csv'; png='bench.png'" rosebush-bench.gp
#
# The CSV holds one row per workload, threads, structure and size, in that
# order, so each line's points are consecutive rows: the rows of other
# lines map to NaN and are skipped.

set datafile separator ','
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
	set terminal pngcairo size 1600,1300 noenhanced
} else {
	set terminal png size 1600,1300 noenhanced
}
set output png
set logscale xy
set format x '1e%T'
set xlabel 'entries'
set ylabel 'ns/op (median)'
set grid
set key top left

structures = 'rosebush rhashtable hlist_bl cds_lfht'
workloads = 'lookup-uniform lookup-zipf lookup-negative mix-90/10'
latency = 'latency-uniform latency-negative'

set multiplot layout 3,4 title 'rosebush-bench: lookups, 1 thread (top) and 2 threads (middle); latency-bound lookups, 1 thread (bottom)'
do for [t = 1:2] {
	do for [w in workloads] {
		set title sprintf('%s, %d thread%s', w, t, t > 1 ? 's' : '')
		plot for [s in structures] csv skip 1 \
			using ((strcol(1) eq w && $2 == t && strcol(4) eq s) ? $3 : NaN):7 \
			with linespoints title s
	}
}
do for [w in latency] {
	set title sprintf('%s, 1 thread', w)
	plot for [s in structures] csv skip 1 \
		using ((strcol(1) eq w && $2 == 1 && strcol(4) eq s) ? $3 : NaN):7 \
		with linespoints title s
}
unset multiplot
