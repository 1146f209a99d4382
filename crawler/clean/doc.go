// Package clean is the cleaning stage of the crawl pipeline: it turns an
// HTML document into a structured [Page] (title, h1–h3 headings, meta
// description and keywords, language, last-modified date, canonical URL,
// robots directives,
// outlinks with their anchor text, and the main content as paragraph-level
// text blocks), and removes site templates (boilerplate) with collection
// statistics ([Templates]).
//
// Main content is the first of main, article, [role=main], #content and
// .content that holds non-trivial text, else body. Inside it, script,
// style, noscript, template, nav, header, footer, aside, form, iframe, svg,
// elements with the hidden attribute, aria-hidden="true", or an inline
// style with display:none or visibility:hidden are dropped. Outlinks are
// taken from the whole document (navigation links are how a crawler finds
// pages) and are always absolute http or https URLs.
//
// Tag rules cannot remove everything a site repeats on every page (a
// sidebar rendered inside main, a "related articles" list, a legal notice
// in the last paragraph). [Templates] counts, per host, on how many pages
// each block appears; [Templates.Strip] then drops the blocks found on more
// than a share of the host's pages, so that two different pages sharing a
// big template are not near duplicates, and two copies of one article
// under different templates are.
//
// Parse never panics on malformed input; it refuses input larger than
// [Options.MaxBytes] ([ErrTooLarge]) and input that looks binary
// ([ErrNotHTML]). Input that is not valid UTF-8 is decoded with the
// charset its meta tags declare (windows-1252 if none).
package clean
