package minhash

import "math/bits"

// Fast returns a sketch of set in O(len(set) + Size·log Size) hashes
// rather than the len(set)·Size of [Hasher.Sketch]: fast similarity
// sketching (Dahlgaard, Knudsen and Thorup, FOCS 2017). Features are
// hashed in rounds; in each round every feature picks one bin at random
// and offers it a value from that round's range, every round's range above
// the one before, and a bin keeps the smallest value offered. Once every
// bin holds a value no later round can lower one, so the rounds stop: a
// set with many more features than bins needs one round, a small set
// about Size·ln(Size)/len(set).
//
// Each coordinate is the value of the union's feature that offers that bin
// the smallest value, which is equally likely any of them, so two sketches
// agree in a coordinate with probability equal to the sets' resemblance,
// as with Size independent functions; the coordinates are nearly
// independent (the estimate is as concentrated), so [Sketch.Jaccard],
// [Bands] and [SuperShingles] apply. Sketches of the two kinds are not
// comparable. Duplicates count once; the sketch of an empty set is all
// [Empty]. One allocation, the result.
func (h *Hasher) Fast(set []uint64) Sketch {
	return h.FastTo(make(Sketch, len(h.coefs)), set)
}

// FastTo is [Hasher.Fast] into s, which must hold Size coordinates (its
// values are overwritten), for a caller that reuses sketches; it returns
// s. No allocation.
func (h *Hasher) FastTo(s Sketch, set []uint64) Sketch {
	k := uint64(len(h.coefs))
	for i := range s {
		s[i] = Empty
	}
	if len(set) == 0 {
		return s
	}
	const valueBits = 48 // the rest of the 63 bits number the round
	empty := len(s)
	for round := uint64(0); empty > 0 && round < 1<<(63-valueBits); round++ {
		seed := h.coefs[round%k].key + round
		for _, x := range set {
			y := mix(x ^ seed)
			bin, _ := bits.Mul64(y, k) // the high bits choose the bin
			v := round<<valueBits | mix(y)>>(64-valueBits)
			if v < s[bin] {
				if s[bin] == Empty {
					empty--
				}
				s[bin] = v
			}
		}
	}
	return s
}
