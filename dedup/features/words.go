package features

import (
	"slices"
	"strings"
	"unicode/utf8"
)

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

var (
	monthWords = setOf(`january february march april may june july august september october november
december jan feb mar apr jun jul aug sep sept oct nov dec`)
	weekdayWords = setOf(`monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu
thur thurs fri sat sun 月 火 水 木 金 土 日 월 화 수 목 금 토 일`)
)

// dateMask marks the tokens of tokens that belong to dates (see
// Options.StripDates): a month name with the day and year numbers next to
// it (up to two on each side: "2 march 2026", "march 2nd 2026", "mar
// 2026"), a weekday name next to such a date ("monday 2 march 2026"), and
// runs of three or two numbers that read as a date with a four-digit year
// (year-month-day, day-month-year, month-day-year; year-month,
// month-year), and Chinese, Japanese and Korean dates: two or three
// numbers each followed by its unit, 年/년 (a four-digit year), 月/월 (1
// to 12), 日/일 (1 to 31), in that order ("2026年3月2日", "3月2日",
// "2026년 3월"). A month or weekday name without a number beside it is a
// word ("may", "march", "sat" in "add_sat") and stays. Cost:
// O(len(tokens)).
func dateMask(tokens []string) []bool {
	drop := make([]bool, len(tokens))
	if !slices.ContainsFunc(tokens, leadingDigit) {
		return drop // every date form has a number
	}
	markMonthNameDates(tokens, drop)
	markNumericDates(tokens, drop)
	markCJKDates(tokens, drop)
	markWeekdays(tokens, drop)
	return drop
}

// markMonthNameDates marks each month name that has a day or year number
// next to it, with up to two such numbers on each side.
func markMonthNameDates(tokens []string, drop []bool) {
	number := func(j int) bool { return j >= 0 && j < len(tokens) && (isDay(tokens[j]) || isYear(tokens[j])) }
	for i, t := range tokens {
		// a month name counts with a number next to it: look it up only then
		if !(i > 0 && leadingDigit(tokens[i-1]) || i+1 < len(tokens) && leadingDigit(tokens[i+1])) || !monthWords[t] {
			continue
		}
		for _, dir := range []int{-1, 1} {
			for j := i + dir; j != i+3*dir && number(j); j += dir {
				drop[i], drop[j] = true, true
			}
		}
	}
}

// markNumericDates marks runs of three numbers (year-month-day,
// day-month-year, month-day-year) or, failing that, two numbers
// (year-month, month-year) that read as a date.
func markNumericDates(tokens []string, drop []bool) {
	for i := 0; i+1 < len(tokens); i++ {
		if !leadingDigit(tokens[i]) {
			continue
		}
		if i+2 < len(tokens) && isNumericDate3(tokens[i], tokens[i+1], tokens[i+2]) {
			drop[i], drop[i+1], drop[i+2] = true, true, true
			continue
		}
		if isNumericDate2(tokens[i], tokens[i+1]) {
			drop[i], drop[i+1] = true, true
		}
	}
}

// isNumericDate3 reports whether a, b, c read as year-month-day,
// day-month-year or month-day-year.
func isNumericDate3(a, b, c string) bool {
	return isYear(a) && isMonth(b) && isDay(c) || isDay(a) && isMonth(b) && isYear(c) || isMonth(a) && isDay(b) && isYear(c)
}

// isNumericDate2 reports whether a, b read as year-month or month-year.
func isNumericDate2(a, b string) bool {
	return isYear(a) && isMonth(b) || isMonth(a) && isYear(b)
}

// cjkUnits are the units of a CJK date in their order, with what the
// number before each must be.
var cjkUnits = []struct {
	marks []string
	valid func(string) bool
}{{[]string{"年", "년"}, isYear}, {[]string{"月", "월"}, isMonth}, {[]string{"日", "일"}, isDay}}

// markCJKDates marks runs of at least two (number, unit) pairs in the
// order year, month, day ("2026年3月2日", "3月2日", "2026年3月"): the
// numbers, and the units that are tokens of their own. A unit in a bigram
// with the next character ("日に" in "2日に") is kept: it is the same
// whatever the date.
func markCJKDates(tokens []string, drop []bool) {
	for i := 0; i+3 < len(tokens); i++ {
		if !leadingDigit(tokens[i]) {
			continue
		}
		j, unit := i, 0
		for j+1 < len(tokens) && unit < len(cjkUnits) {
			u := cjkUnit(tokens[j], tokens[j+1], unit)
			if u < 0 {
				break
			}
			j, unit = j+2, u+1
		}
		if j-i < 4 {
			continue
		}
		for k := i; k < j; k++ {
			drop[k] = k%2 == i%2 || utf8.RuneCountInString(tokens[k]) == 1
		}
		i = j - 1
	}
}

// cjkUnit returns the index in cjkUnits, from "from" on, of the unit
// that the token after the number n starts with (the unit alone, or in a
// bigram), or -1 if it starts with none of them or n is not a valid
// number for it.
func cjkUnit(n, next string, from int) int {
	r, size := utf8.DecodeRuneInString(next)
	if r == utf8.RuneError {
		return -1
	}
	mark := next[:size]
	for u := from; u < len(cjkUnits); u++ {
		if slices.Contains(cjkUnits[u].marks, mark) {
			if cjkUnits[u].valid(n) {
				return u
			}
			return -1
		}
	}
	return -1
}

// markWeekdays marks each weekday name next to a token already marked as
// part of a date.
func markWeekdays(tokens []string, drop []bool) {
	for i, t := range tokens {
		if (i > 0 && drop[i-1] || i+1 < len(tokens) && drop[i+1]) && weekdayWords[t] {
			drop[i] = true
		}
	}
}

// leadingDigit reports whether t starts with an ASCII digit, as every
// number isDay, isMonth and isYear accept does.
func leadingDigit(t string) bool { return t != "" && t[0] >= '0' && t[0] <= '9' }

// isDay reports whether t is a day of the month: 1 to 31, with at most two
// digits, possibly an English ordinal ("2nd", "31st").
func isDay(t string) bool {
	for _, suffix := range []string{"st", "nd", "rd", "th"} {
		if n := strings.TrimSuffix(t, suffix); n != t {
			t = n
			break
		}
	}
	n, ok := smallNumber(t, 2)
	return ok && n >= 1 && n <= 31
}

// isMonth reports whether t is a month number: 1 to 12, at most two digits.
func isMonth(t string) bool {
	n, ok := smallNumber(t, 2)
	return ok && n >= 1 && n <= 12
}

// isYear reports whether t is a four-digit year from 1000 to 2999.
func isYear(t string) bool {
	n, ok := smallNumber(t, 4)
	return ok && len(t) == 4 && n >= 1000 && n <= 2999
}

// smallNumber parses t as a decimal number of at most digits ASCII
// digits.
func smallNumber(t string, digits int) (int, bool) {
	if t == "" || len(t) > digits {
		return 0, false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return 0, false
		}
		n = 10*n + int(t[i]-'0')
	}
	return n, true
}

// setOf returns the set of the whitespace-separated words in words.
func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}
