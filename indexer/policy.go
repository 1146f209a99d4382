package indexer

import "fmt"

// A Policy says what happens to near-duplicates that are not the master of
// their cluster. The zero value is [Skip].
type Policy int

// The policies.
const (
	// Skip leaves near-duplicates out of the index; their member record
	// (URL, title, cluster) is kept, and their difference record — what
	// they have that their master lacks, see [Difference] — so that each
	// is still found by its own name and text. Two kinds are indexed with
	// master=false instead, so that they can represent their cluster on
	// a result page: a near-duplicate that joined through an edit
	// allowance (Placement.Edited: close to its master, not a copy at
	// the threshold — a query that matches it better finds it), and one
	// that some users may see without seeing the master.
	Skip Policy = iota
	// Hidden indexes near-duplicates with master=false; [Index.Searchable]
	// hides them from result pages.
	Hidden
	// All indexes near-duplicates with master=false and hides nothing;
	// collapsing is left to the query layer.
	All
)

var policyNames = [...]string{Skip: "skip", Hidden: "hidden", All: "all"}

// String returns "skip", "hidden" or "all" (or "Policy(n)").
func (p Policy) String() string {
	if p >= 0 && int(p) < len(policyNames) {
		return policyNames[p]
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// ParsePolicy parses the names returned by [Policy.String]. It returns an
// error wrapping [ErrPolicy] for anything else.
func ParsePolicy(s string) (Policy, error) {
	for p, name := range policyNames {
		if s == name {
			return Policy(p), nil
		}
	}
	return 0, fmt.Errorf("%w %q (want skip, hidden or all)", ErrPolicy, s)
}

// MarshalText implements encoding.TextMarshaler: the policy's name, so
// configuration files say "skip", "hidden" or "all".
func (p Policy) MarshalText() ([]byte, error) {
	if _, err := ParsePolicy(p.String()); err != nil {
		return nil, err
	}
	return []byte(p.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with ParsePolicy.
func (p *Policy) UnmarshalText(text []byte) error {
	v, err := ParsePolicy(string(text))
	if err != nil {
		return err
	}
	*p = v
	return nil
}
