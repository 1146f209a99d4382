package signatures

import "testing"

func TestStrings(t *testing.T) {
	for k, want := range map[Kind]string{Fingerprint: "fingerprint", Band: "band", Sketch: "sketch", Super: "super", IMatch: "i-match", IMatch + 3: "i-match/3"} {
		if got := k.String(); got != want {
			t.Errorf("Kind %d: %q, want %q", int(k), got, want)
		}
	}
	for o, want := range map[Outcome]string{Added: "added", Capped: "capped", Stopped: "stopped", Ignored: "ignored", -1: "Outcome(-1)"} {
		if got := o.String(); got != want {
			t.Errorf("Outcome %d: %q, want %q", int(o), got, want)
		}
	}
}

func TestIMatchKey(t *testing.T) {
	var a, b [20]byte
	a[0], b[19] = 1, 1 // b differs from a only past the first 8 bytes
	if IMatchKey(0, a) == IMatchKey(0, [20]byte{}) {
		t.Error("signatures differing in their first byte share a key")
	}
	if IMatchKey(0, b) != IMatchKey(0, [20]byte{}) {
		t.Error("the key uses more than the first 8 bytes")
	}
	if k := IMatchKey(2, a); k.Kind != IMatch+2 || k.Sum != 1<<56 {
		t.Errorf("IMatchKey(2, a) = %+v", k)
	}
}
