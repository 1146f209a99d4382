// Package cputime reads the CPU time the test process has used, for
// benchmarks that report CPU per unit of work beside a reference run in
// the same process (a figure a busy machine blurs less than wall time).
package cputime
