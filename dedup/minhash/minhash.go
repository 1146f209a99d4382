package minhash

import (
	"errors"
	"fmt"
	"math"
)

// DefaultSize is the number of hash functions of a [Hasher] when
// Options.Size is zero.
const DefaultSize = 128

// DefaultSeed is the seed of a [Hasher] when Options.Seed is zero.
const DefaultSeed = 1

// MaxSize is the largest Options.Size accepted by [New].
const MaxSize = 1 << 16

// ErrOptions is wrapped by the error [New] returns for invalid Options.
var ErrOptions = errors.New("minhash: invalid options")

// Options configures a [Hasher]. The zero value is the default: 128 hash
// functions, seed 1.
type Options struct {
	// Size is the number of hash functions, which is the length of every
	// Sketch. Larger sketches estimate resemblance more precisely (standard
	// error sqrt(J(1−J)/Size)) and cost proportionally more. Default
	// [DefaultSize] (128); at most [MaxSize].
	Size int
	// Seed selects the family of hash functions. Sketches made with
	// different seeds are not comparable. Default [DefaultSeed] (1); a zero
	// Seed means the default, so seeds 0 and 1 give the same Hasher.
	Seed uint64
}

// Validate reports the first invalid field of o, if any, wrapping
// [ErrOptions].
func (o Options) Validate() error {
	if o.Size < 0 || o.Size > MaxSize {
		return fmt.Errorf("%w: size %d out of range [0, %d]", ErrOptions, o.Size, MaxSize)
	}
	return nil
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.Size == 0 {
		o.Size = DefaultSize
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	return o
}

// A Hasher computes MinHash sketches with a fixed family of Size hash
// functions. It is immutable and safe for concurrent use.
//
// Hash function i maps a feature x to mul_i·(mix(x) ⊕ key_i), folded by
// an xor-shift and truncated to 63 bits, where mix is the splitmix64
// finalizer (a bijection on 64 bits, applied once per feature) and key_i,
// mul_i (odd) are drawn from a splitmix64 stream started at Seed. Every
// function is a bijection of mix(x) up to the last bit, so distinct
// features collide in a coordinate with probability 2⁻⁶³.
type Hasher struct {
	opts  Options
	coefs []coef
}

type coef struct{ key, mul uint64 }

// New returns a Hasher for opts, or an error wrapping [ErrOptions] if opts
// is invalid. Cost: O(Size).
func New(opts Options) (*Hasher, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts.EnsureDefaults()
	h := &Hasher{opts: opts, coefs: make([]coef, opts.Size)}
	state := opts.Seed
	next := func() uint64 {
		state += 0x9e3779b97f4a7c15
		return mix(state)
	}
	for i := range h.coefs {
		h.coefs[i] = coef{key: next(), mul: next() | 1}
	}
	return h, nil
}

// Options returns the options of h with defaults filled in.
func (h *Hasher) Options() Options { return h.opts }

// Size returns the number of hash functions of h, the length of its
// sketches.
func (h *Hasher) Size() int { return len(h.coefs) }

// Empty is the value of every coordinate of the sketch of an empty set.
// Coordinates of a non-empty set are always smaller (they have 63 bits).
const Empty = math.MaxUint64

// A Sketch holds, for each hash function of a [Hasher], the minimum hash
// value over a feature set. Every value of a non-empty set is below 2⁶³;
// the sketch of the empty set is all [Empty].
type Sketch []uint64

// Sketch returns the MinHash sketch of set, a list of 64-bit feature hashes
// (for example features.Shingles); duplicates are allowed and count once,
// and set is not modified. The sketch of an empty set has every coordinate
// equal to [Empty] (see [Sketch.IsEmpty]).
//
// Cost: O(len(set)·Size) multiplications; one allocation, the result.
func (h *Hasher) Sketch(set []uint64) Sketch {
	s := make(Sketch, len(h.coefs))
	for i := range s {
		s[i] = Empty
	}
	coefs := h.coefs[:len(s)]
	for _, x := range set {
		y := mix(x)
		for i, c := range coefs {
			v := (y ^ c.key) * c.mul
			v = (v ^ v>>32) >> 1
			if v < s[i] {
				s[i] = v
			}
		}
	}
	return s
}

// IsEmpty reports whether s is the sketch of an empty set: it has no
// coordinates or they all equal [Empty]. Cost: O(len(s)).
func (s Sketch) IsEmpty() bool {
	for _, v := range s {
		if v != Empty {
			return false
		}
	}
	return true
}

// Jaccard returns the fraction of coordinates where s and t agree, an
// unbiased estimate of the resemblance of the two sets they sketch, with
// standard error sqrt(J(1−J)/len(s)). Coordinates equal to [Empty] never
// count as agreeing, so the sketch of an empty set has resemblance 0 with
// every sketch, itself included. Sketches of different lengths are not
// comparable and give 0.
//
// Cost: O(len(s)), no allocation.
func (s Sketch) Jaccard(t Sketch) float64 {
	if len(s) != len(t) || len(s) == 0 {
		return 0
	}
	t = t[:len(s)]
	eq := 0
	for i, v := range s {
		if v == t[i] && v != Empty {
			eq++
		}
	}
	return float64(eq) / float64(len(s))
}

// mix is the splitmix64 finalizer, a bijection on 64 bits with full
// avalanche.
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
