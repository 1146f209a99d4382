package features

import "strings"

// IsStopWord reports whether the lowercase token t is in Doppel's English
// stop-word list (articles, pronouns, auxiliaries, prepositions and
// conjunctions).
func IsStopWord(t string) bool { return stopWords[t] }

var stopWords = setOf(`a about above after again against all am an and any are as at be because been
before being below between both but by can could did do does doing down during each few for from
further had has have having he her here hers herself him himself his how i if in into is it its
itself just me more most my myself no nor not now of off on once only or other our ours ourselves
out over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which while
who whom why will with would you your yours yourself yourselves`)

var dateWords = setOf(`january february march april may june july august september october november
december jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday
saturday sunday mon tue tues wed thu thur thurs fri sat sun am pm`)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}
