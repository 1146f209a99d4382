package web

import (
	"slices"
	"strconv"
)

// A bar is one bar of a histogram chart.
type bar struct {
	Label string
	Count int
	Y     int     // top of the bar's row, in SVG units
	Width float64 // bar length, 0–300 SVG units
}

// bars turns a histogram (value → count) into chart bars, in value order.
func bars(h map[int]int) []bar {
	keys := make([]int, 0, len(h))
	most := 1
	for k, n := range h {
		keys = append(keys, k)
		most = max(most, n)
	}
	slices.Sort(keys)
	out := make([]bar, 0, len(keys))
	for i, k := range keys {
		out = append(out, bar{Label: strconv.Itoa(k), Count: h[k], Y: i * 22, Width: 300 * float64(h[k]) / float64(most)})
	}
	return out
}
