// Package doccheck holds the tests that keep docs/architecture.md true to
// the code: its package table (every package, its job and the Doppel
// packages it imports) and the method count it states for
// crawler.Crawler. It has no code of its own.
//
// After adding a package or changing imports, regenerate the table with
//
//	go test ./internal/testrig/doccheck -run TestPackageTable -args -update
//
// and write the new package's job in its row.
package doccheck
