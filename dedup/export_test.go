package dedup

// VerifySerially turns off the verification ahead of Insert (see
// preVerified) for the external benchmarks: every candidate is found and
// verified by Insert, one document at a time, as before AddSeq did it on
// the signing goroutines. Call it before adding.
func VerifySerially(d *Detector) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.serialVerify = true
}
