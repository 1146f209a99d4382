package docsite

import (
	"fmt"
	"slices"
	"strings"
)

// An item is one page of the API reference before it is placed in a
// module: its kind ("fn", "struct", "trait"), name, a one-line summary for
// the module page, and the blocks after its heading.
type item struct {
	kind, name, summary string
	body                func(module string) []block
}

// A module is a page of the API reference listing items, each with a page
// of its own.
type module struct {
	path  string // "core::arch::x86_64"
	intro []block
	items []item
	of    string // the module this one copies ("core::iter" for "std::iter"), "" for an original
}

// dir is the URL directory of a module path: "/rust/core/arch/x86_64/".
func dir(modPath string) string { return "/rust/" + strings.ReplaceAll(modPath, "::", "/") + "/" }

// itemPath is the URL path of an item of a module.
func itemPath(modPath string, it item) string {
	return dir(modPath) + it.kind + "." + it.name + ".html"
}

// apiPages returns the API reference: the crates' pages, core::arch, then
// each module's index page followed by its items' pages.
func apiPages(opts Options) []Page {
	x86 := x86Items(opts)
	neon := neonItems(opts)
	iter, char := iterItems(), charItems()
	mods := []module{
		{path: "core::arch::x86_64", intro: archIntro("x86_64", "x86-64"), items: x86},
		{path: "core::arch::x86", intro: archIntro("x86", "x86"), items: x86, of: "core::arch::x86_64"},
		{path: "core::arch::aarch64", intro: archIntro("aarch64", "AArch64"), items: neon},
		{path: "core::iter", intro: iterIntro, items: iter},
		{path: "std::iter", intro: iterIntro, items: iter, of: "core::iter"},
		{path: "core::char", intro: charIntro, items: char},
		{path: "std::char", intro: charIntro, items: char, of: "core::char"},
	}
	if opts.Large {
		mods = append(mods, module{path: "std::arch::x86_64", intro: archIntro("x86_64", "x86-64"), items: x86, of: "core::arch::x86_64"},
			module{path: "std::arch::x86", intro: archIntro("x86", "x86"), items: x86, of: "core::arch::x86_64"},
			module{path: "std::arch::aarch64", intro: archIntro("aarch64", "AArch64"), items: neon, of: "core::arch::aarch64"})
	}
	crate := func(name, intro string, mods []string) Page {
		p := Page{Path: "/rust/" + name + "/index.html", Title: name + " - Rust", Lang: "en"}
		p.blocks = []block{h1("Crate " + name), para(intro), h2("Modules")}
		for _, m := range mods {
			p.blocks = append(p.blocks, block{"li", []link{{dir(m) + "index.html", strings.TrimPrefix(m, name+"::")}}})
		}
		return p
	}
	var pages []Page
	var coreMods, stdMods []string
	for _, m := range mods {
		name := m.path
		if strings.Contains(name, "::arch::") {
			name = name[:strings.Index(name, "::arch::")+len("::arch")]
		}
		if strings.HasPrefix(name, "std::") && !slices.Contains(stdMods, name) {
			stdMods = append(stdMods, name)
		} else if strings.HasPrefix(name, "core::") && !slices.Contains(coreMods, name) {
			coreMods = append(coreMods, name)
		}
	}
	pages = append(pages,
		crate("core", "The Rust Core Library: the dependency-free foundation of the Rust standard library. It is the portable glue between the language and its libraries, defining the intrinsic and primitive building blocks of all Rust code.", coreMods),
		crate("std", "The Rust Standard Library: the foundation of portable Rust software, a set of minimal and battle-tested shared abstractions for the broader Rust ecosystem.", stdMods))
	for _, parent := range []string{"core::arch", "std::arch"} {
		p := Page{Path: dir(parent) + "index.html", Title: parent + " - Rust", Lang: "en"}
		p.blocks = []block{fqn("Module", parent), para("SIMD and vendor intrinsics module: the platform-specific intrinsics of each architecture, each in its module."), h2("Modules")}
		for _, m := range mods {
			if strings.HasPrefix(m.path, parent+"::") {
				p.blocks = append(p.blocks, block{"li", []link{{dir(m.path) + "index.html", strings.TrimPrefix(m.path, parent+"::")}}})
			}
		}
		if len(p.blocks) > 3 {
			pages = append(pages, p)
		}
	}
	for _, m := range mods {
		pages = append(pages, m.pages()...)
	}
	return pages
}

// pages returns the module's index page and its items' pages.
func (m module) pages() []Page {
	parts := strings.Split(m.path, "::")
	last := parts[len(parts)-1]
	var nav []link
	for _, it := range m.items {
		if len(nav) == 50 {
			break
		}
		nav = append(nav, link{itemPath(m.path, it), it.name})
	}
	of := func(p string) string {
		if m.of == "" {
			return ""
		}
		return strings.Replace(p, dir(m.path), dir(m.of), 1)
	}
	index := Page{Path: dir(m.path) + "index.html", Title: m.path + " - Rust", Lang: "en", nav: nav}
	index.Of = of(index.Path)
	index.blocks = append([]block{fqn("Module", m.path)}, m.intro...)
	kinds := []struct{ kind, heading string }{{"struct", "Structs"}, {"trait", "Traits"}, {"fn", "Functions"}}
	for _, k := range kinds {
		first := true
		for _, it := range m.items {
			if it.kind != k.kind {
				continue
			}
			if first {
				index.blocks = append(index.blocks, h2(k.heading))
				first = false
			}
			index.blocks = append(index.blocks, block{"li", []link{{itemPath(m.path, it), it.name}, {"", " " + it.summary}}})
		}
	}
	pages := []Page{index}
	for _, it := range m.items {
		p := Page{Path: itemPath(m.path, it), Title: it.name + " in " + m.path + " - Rust", Lang: "en", nav: nav}
		p.Of = of(p.Path)
		heading := map[string]string{"fn": "Function", "struct": "Struct", "trait": "Trait"}[it.kind]
		p.blocks = append([]block{fqn(heading, m.path+"::"+it.name)}, it.body(last)...)
		pages = append(pages, p)
	}
	return pages
}

// fqn is an item's heading as rustdoc writes it: "Function
// core::arch::x86_64::_mm512_slli_epi16", each path segment a link.
func fqn(kind, path string) block {
	segs := strings.Split(path, "::")
	b := block{tag: "h1", parts: []link{{"", kind + " "}}}
	for i, s := range segs {
		if i > 0 {
			b.parts = append(b.parts, link{"", "::"})
		}
		href := "/rust/" + strings.Join(segs[:i+1], "/") + "/index.html"
		if i == len(segs)-1 && kind != "Module" {
			href = "#"
		}
		b.parts = append(b.parts, link{href, s})
	}
	return b
}

// archIntro is the introduction of an architecture module.
func archIntro(mod, arch string) []block {
	return []block{
		div("Available on " + arch + " only."),
		para("Platform-specific intrinsics for the " + mod + " platform."),
		para("See the module documentation of core::arch for more details about how to use these intrinsics safely, how to check at run time whether the processor supports a target feature, and how to compile a function with a target feature enabled."),
	}
}

// x86Op is a family of x86 SIMD intrinsics.
type x86Op struct {
	name string
	desc string // {w}: the lane width in bits
	args int    // vector arguments besides the mask and src: 1, 2, or 1 with an immediate (-1)
}

var x86Ops = []x86Op{
	{"slli", "Shift packed {w}-bit integers in a left by imm8 while shifting in zeros", -1},
	{"add", "Add packed {w}-bit integers in a and b", 2},
	{"srli", "Shift packed {w}-bit integers in a right by imm8 while shifting in zeros", -1},
	{"srai", "Shift packed {w}-bit integers in a right by imm8 while shifting in sign bits", -1},
	{"sub", "Subtract packed {w}-bit integers in b from packed {w}-bit integers in a", 2},
	{"max", "Compare packed signed {w}-bit integers in a and b, and keep the packed maximum values", 2},
	{"min", "Compare packed signed {w}-bit integers in a and b, and keep the packed minimum values", 2},
	{"abs", "Compute the absolute value of packed signed {w}-bit integers in a", 1},
	{"unpacklo", "Unpack and interleave {w}-bit integers from the low half of each 128-bit lane in a and b", 2},
	{"unpackhi", "Unpack and interleave {w}-bit integers from the high half of each 128-bit lane in a and b", 2},
	{"sllv", "Shift packed {w}-bit integers in a left by the amount specified by the corresponding element in count while shifting in zeros", 2},
}

// tbm are the scalar bit-manipulation intrinsics of the TBM extension.
var tbm = []struct{ name, desc string }{
	{"_blsic", "Clears least significant bit and sets all other bits."},
	{"_blcfill", "Clears all bits below the least significant zero bit of x."},
	{"_blci", "Sets all bits of x to 1 except for the least significant zero bit."},
	{"_blcic", "Sets the least significant zero bit of x and clears all bits above that bit."},
	{"_blcmsk", "Sets the least significant zero bit of x and clears all bits above that bit."},
	{"_blcs", "Sets the least significant zero bit of x."},
	{"_blsfill", "Sets all bits of x below the least significant one."},
	{"_t1mskc", "Clears all bits below the least significant zero of x and sets all other bits."},
	{"_tzmsk", "Sets all bits below the least significant one of x and clears all other bits."},
}

// x86Safety is the safety section every x86 intrinsic page has.
const x86Safety = `This intrinsic is unsafe to call because the caller must make sure that the processor running the
program supports the target feature it needs. Calling it on a processor without that feature is undefined behavior:
the program may crash with an illegal instruction, or go on computing wrong results. Check the feature at run time
with the is_x86_feature_detected macro before calling the function, or compile the calling function with the
target_feature attribute and only call it after such a check. Intrinsics that take an immediate operand as a const
generic parameter are checked at compile time: an immediate out of range is an error, not a silent truncation. The
vector types of this module are plain data: transmuting between them and arrays of integers of the same size is
sound, and loads and stores of unaligned memory have intrinsics of their own.`

// x86Lanes is the note on lanes every x86 SIMD intrinsic page has.
const x86Lanes = `A vector register of 128, 256 or 512 bits holds packed integers of 8, 16, 32 or 64 bits, its lanes,
and an operation on packed integers works on every lane at once. Most intrinsics compile to a single instruction, so
the cost of a call is that of the instruction; the compiler may fuse loads into it. Masked variants take a mask
register with one bit per lane and either keep the lanes of src or zero the lanes whose bit is not set.`

// x86Items returns the intrinsics of the x86 and x86_64 modules: every
// operation, lane width, vector width and mask variant of the site's
// size, then the TBM scalar intrinsics.
func x86Items(opts Options) []item {
	ops, widths := x86Ops[:4], []int{8, 16, 32}
	if opts.Large {
		ops, widths = x86Ops, []int{8, 16, 32, 64}
	}
	vecs := []struct {
		prefix, typ string
		bits        int
	}{{"_mm", "__m128i", 128}, {"_mm256", "__m256i", 256}, {"_mm512", "__m512i", 512}}
	var items []item
	for _, op := range ops {
		for _, w := range widths {
			for _, v := range vecs {
				for _, variant := range []string{"", "mask_", "maskz_"} {
					items = append(items, x86Item(op, w, v.prefix, v.typ, v.bits, variant))
				}
			}
		}
	}
	for _, t := range tbm {
		for _, w := range []int{32, 64} {
			name := fmt.Sprintf("%s_u%d", t.name, w)
			typ := fmt.Sprintf("u%d", w)
			items = append(items, item{kind: "fn", name: name, summary: "Experimental " + t.desc,
				body: func(mod string) []block {
					return []block{
						pre(fmt.Sprintf("pub unsafe fn %s(x: %s) -> %s", name, typ, typ)),
						div("🔬 This is a nightly-only experimental API. (stdsimd #48556)"),
						div("Available on " + archName(mod) + " and target feature tbm only."),
						para(t.desc),
						para("AMD’s documentation of " + name + " lists it among the Trailing Bit Manipulation instructions."),
						h2("Safety"), para(x86Safety),
					}
				}})
		}
	}
	return items
}

// archName is the architecture a module's portability note names.
func archName(mod string) string {
	switch mod {
	case "x86_64":
		return "x86-64"
	case "aarch64":
		return "AArch64"
	}
	return mod
}

// x86Item is the page of one SIMD intrinsic.
func x86Item(op x86Op, w int, prefix, typ string, bits int, variant string) item {
	name := fmt.Sprintf("%s_%s%s_epi%d", prefix, variant, op.name, w)
	lanes := bits / w
	mask := fmt.Sprintf("__mmask%d", max(lanes, 8))
	var args []string
	switch variant {
	case "mask_":
		args = append(args, "src: "+typ, "k: "+mask)
	case "maskz_":
		args = append(args, "k: "+mask)
	}
	args = append(args, "a: "+typ)
	if op.args == 2 {
		args = append(args, "b: "+typ)
	}
	if op.args < 0 {
		args = append(args, "const IMM8: u32")
	}
	desc := strings.ReplaceAll(op.desc, "{w}", fmt.Sprint(w))
	switch variant {
	case "mask_":
		desc += ", and store the results in dst using writemask k (elements are copied from src when the corresponding mask bit is not set)."
	case "maskz_":
		desc += ", and store the results in dst using zeromask k (elements are zeroed out when the corresponding mask bit is not set)."
	default:
		desc += ", and store the results in dst."
	}
	feature := "sse2"
	switch {
	case bits == 512 || variant != "":
		feature = "avx512f"
		if w <= 16 {
			feature = "avx512bw"
		}
		if bits < 512 {
			feature += ",avx512vl"
		}
	case bits == 256:
		feature = "avx2"
	}
	experimental := strings.HasPrefix(feature, "avx512")
	summary := desc
	if experimental {
		summary = "Experimental " + desc
	}
	return item{kind: "fn", name: name, summary: summary, body: func(mod string) []block {
		b := []block{pre(fmt.Sprintf("pub unsafe fn %s(%s) -> %s", name, strings.Join(args, ", "), typ))}
		if experimental {
			b = append(b, div("🔬 This is a nightly-only experimental API. (stdsimd #48556)"))
		}
		return append(b,
			div("Available on "+archName(mod)+" and target feature "+feature+" only."),
			para(desc),
			block{"p", []link{{"https://www.intel.com/content/www/us/en/docs/intrinsics-guide/index.html#text=" + name, "Intel’s documentation"}}},
			h2("Safety"), para(x86Safety), h2("Lanes"), para(x86Lanes))
	}}
}

// neonFamilies are families of Arm Neon intrinsics: each is one operation
// on vectors of every element type, its pages the same but for the types.
var neonFamilies = []struct {
	name, desc string
	args       int // vector arguments; 0: vcreate's u64
}{
	{"vcreate", "Insert vector element from another vector element", 0},
	{"vzip1", "Zip vectors (primary)", 2},
	{"vzip2", "Zip vectors (secondary)", 2},
	{"vuzp1", "Unzip vectors (primary)", 2},
	{"vuzp2", "Unzip vectors (secondary)", 2},
	{"vtrn1", "Transpose vectors (primary)", 2},
	{"vtrn2", "Transpose vectors (secondary)", 2},
	{"vadd", "Vector add", 2},
	{"vsub", "Vector subtract", 2},
	{"vmax", "Maximum (vector)", 2},
	{"vabs", "Absolute value (vector)", 1},
}

// neonSafety and neonTypes are text every Neon intrinsic page has.
const (
	neonSafety = `This intrinsic is unsafe to call because the caller must make sure that the processor running the
program supports the neon target feature. Every AArch64 processor that runs a mainstream operating system has it,
but a bare-metal target or a kernel may be built without floating-point and vector registers, and then calling a
Neon intrinsic is undefined behavior. Check the feature at run time with the is_aarch64_feature_detected macro, or
compile the calling function with the target_feature attribute.`
	neonTypes = `The vector types of this module are named after their element type, the number of bits of an element
and the number of lanes: int16x4_t holds four signed 16-bit integers in a 64-bit register, uint8x16_t sixteen
unsigned bytes in a 128-bit register, float64x1_t one double-precision number and poly16x4_t four polynomials
over GF(2). The functions whose names end in q work on the 128-bit registers, the others on the 64-bit ones. A
function is named after the instruction it compiles to, followed by the element type: s for signed integers, u for
unsigned integers, f for floating-point numbers and p for polynomials. Loads and stores between memory and vector
registers have intrinsics of their own (vld1 and vst1 with their variants), and so do the conversions between vector
types of the same size, which reinterpret the bits of a register without changing them.`
)

// neonItems returns the Neon intrinsics of the site's size.
func neonItems(opts Options) []item {
	fams, types, qs := neonFamilies[:5], []string{"s8", "s16", "u16", "f64", "p16"}, []string{""}
	if opts.Large {
		fams, types, qs = neonFamilies, []string{"s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f32", "f64", "p8", "p16"}, []string{"", "q"}
	}
	var items []item
	for _, f := range fams {
		for _, q := range qs {
			if f.args == 0 && q != "" {
				continue // vcreate makes 64-bit vectors only
			}
			for _, t := range types {
				items = append(items, neonItem(f.name, f.desc, f.args, q, t))
			}
		}
	}
	return items
}

// neonItem is the page of one Neon intrinsic.
func neonItem(fam, desc string, nargs int, q, t string) item {
	name := fam + q + "_" + t
	bits := 0
	fmt.Sscan(t[1:], &bits)
	lanes := 64 / bits
	if q != "" {
		lanes *= 2
	}
	elem := map[byte]string{'s': "int", 'u': "uint", 'f': "float", 'p': "poly"}[t[0]]
	typ := fmt.Sprintf("%s%dx%d_t", elem, bits, lanes)
	var sig string
	switch nargs {
	case 0:
		sig = fmt.Sprintf("pub unsafe fn %s(a: u64) -> %s", name, typ)
	case 1:
		sig = fmt.Sprintf("pub unsafe fn %s(a: %s) -> %s", name, typ, typ)
	default:
		sig = fmt.Sprintf("pub unsafe fn %s(a: %s, b: %s) -> %s", name, typ, typ, typ)
	}
	return item{kind: "fn", name: name, summary: desc, body: func(mod string) []block {
		return []block{
			pre(sig),
			div("Available on AArch64 and target feature neon only."),
			para(desc),
			block{"p", []link{{"https://developer.arm.com/architectures/instruction-sets/intrinsics/" + name, "Arm’s documentation"}}},
			h2("Safety"), para(neonSafety),
			h2("Vector types"), para(neonTypes),
		}
	}}
}
