package docsite

// iterIntro is the module documentation of core::iter and std::iter.
var iterIntro = []block{
	para("Composable external iteration."),
	para(`If you’ve found yourself with a collection of some kind, and needed to perform an operation on the elements
of said collection, you’ll quickly run into ‘iterators’. Iterators are heavily used in idiomatic Rust code, so it’s
worth becoming familiar with them.`),
	h2("Organization"),
	para(`This module is largely organized by type: traits are the core portion, they define what kind of iterators
exist and what you can do with them; functions provide some helpful ways to create some basic iterators; structs are
often the return types of the various methods on this module’s traits.`),
	h2("Laziness"),
	para(`Iterators (and iterator adapters) are lazy. This means that just creating an iterator doesn’t do a whole lot.
Nothing really happens until you call next. This is sometimes a source of confusion when creating an iterator solely
for its side effects: the closure passed to map is never called unless the iterator is consumed.`),
}

// charIntro is the module documentation of core::char and std::char.
var charIntro = []block{
	para("Utilities for the char primitive type."),
	para(`The char type represents a single character. More specifically, since ‘character’ isn’t a well-defined
concept in Unicode, char is a ‘Unicode scalar value’, which is similar to, but not the same as, a ‘Unicode code
point’. This module exists for technical reasons; the primary documentation for characters is on the char primitive
type itself.`),
}

// provided are the provided methods of Iterator that rustdoc lists on the
// page of every type implementing it: the long shared part that makes
// iterator adapters copies of one another by resemblance.
var provided = []string{
	"fn size_hint(&self) -> (usize, Option<usize>) Returns the bounds on the remaining length of the iterator. Read more",
	"fn count(self) -> usize Consumes the iterator, counting the number of iterations and returning it. Read more",
	"fn last(self) -> Option<Self::Item> Consumes the iterator, returning the last element. Read more",
	"fn advance_by(&mut self, n: usize) -> Result<(), usize> 🔬 This is a nightly-only experimental API. (iter_advance_by) Advances the iterator by n elements. Read more",
	"fn nth(&mut self, n: usize) -> Option<Self::Item> Returns the nth element of the iterator. Read more",
	"fn step_by(self, step: usize) -> StepBy<Self> Creates an iterator starting at the same point, but stepping by the given amount at each iteration. Read more",
	"fn chain<U>(self, other: U) -> Chain<Self, U::IntoIter> Takes two iterators and creates a new iterator over both in sequence. Read more",
	"fn zip<U>(self, other: U) -> Zip<Self, U::IntoIter> ‘Zips up’ two iterators into a single iterator of pairs. Read more",
	"fn map<B, F>(self, f: F) -> Map<Self, F> Takes a closure and creates an iterator which calls that closure on each element. Read more",
	"fn for_each<F>(self, f: F) Calls a closure on each element of an iterator. Read more",
	"fn filter<P>(self, predicate: P) -> Filter<Self, P> Creates an iterator which uses a closure to determine if an element should be yielded. Read more",
	"fn filter_map<B, F>(self, f: F) -> FilterMap<Self, F> Creates an iterator that both filters and maps. Read more",
	"fn enumerate(self) -> Enumerate<Self> Creates an iterator which gives the current iteration count as well as the next value. Read more",
	"fn peekable(self) -> Peekable<Self> Creates an iterator which can use the peek and peek_mut methods to look at the next element of the iterator without consuming it. Read more",
	"fn skip_while<P>(self, predicate: P) -> SkipWhile<Self, P> Creates an iterator that skips elements based on a predicate. Read more",
	"fn take_while<P>(self, predicate: P) -> TakeWhile<Self, P> Creates an iterator that yields elements based on a predicate. Read more",
	"fn skip(self, n: usize) -> Skip<Self> Creates an iterator that skips the first n elements. Read more",
	"fn take(self, n: usize) -> Take<Self> Creates an iterator that yields the first n elements, or fewer if the underlying iterator ends sooner. Read more",
	"fn scan<St, B, F>(self, initial_state: St, f: F) -> Scan<Self, St, F> An iterator adapter similar to fold that holds internal state and produces a new iterator. Read more",
	"fn flat_map<U, F>(self, f: F) -> FlatMap<Self, U, F> Creates an iterator that works like map, but flattens nested structure. Read more",
	"fn fuse(self) -> Fuse<Self> Creates an iterator which ends after the first None. Read more",
	"fn inspect<F>(self, f: F) -> Inspect<Self, F> Does something with each element of an iterator, passing the value on. Read more",
	"fn by_ref(&mut self) -> &mut Self Borrows an iterator, rather than consuming it. Read more",
	"fn collect<B>(self) -> B Transforms an iterator into a collection. Read more",
	"fn partition<B, F>(self, f: F) -> (B, B) Consumes an iterator, creating two collections from it. Read more",
	"fn fold<B, F>(self, init: B, f: F) -> B Folds every element into an accumulator by applying an operation, returning the final result. Read more",
	"fn reduce<F>(self, f: F) -> Option<Self::Item> Reduces the elements to a single one, by repeatedly applying a reducing operation. Read more",
	"fn all<F>(&mut self, f: F) -> bool Tests if every element of the iterator matches a predicate. Read more",
	"fn any<F>(&mut self, f: F) -> bool Tests if any element of the iterator matches a predicate. Read more",
	"fn find<P>(&mut self, predicate: P) -> Option<Self::Item> Searches for an element of an iterator that satisfies a predicate. Read more",
	"fn position<P>(&mut self, predicate: P) -> Option<usize> Searches for an element in an iterator, returning its index. Read more",
	"fn max(self) -> Option<Self::Item> Returns the maximum element of an iterator. Read more",
	"fn min(self) -> Option<Self::Item> Returns the minimum element of an iterator. Read more",
	"fn rev(self) -> Rev<Self> Reverses an iterator’s direction. Read more",
	"fn sum<S>(self) -> S Sums the elements of an iterator. Read more",
	"fn product<P>(self) -> P Iterates over the entire iterator, multiplying all the elements. Read more",
	"fn cmp<I>(self, other: I) -> Ordering Lexicographically compares the elements of this Iterator with those of another. Read more",
	"fn eq<I>(self, other: I) -> bool Determines if the elements of this Iterator are equal to those of another. Read more",
}

// blanket are the blanket implementations listed on every type's page.
var blanket = []string{
	"impl<T> Any for T where T: 'static + ?Sized,",
	"fn type_id(&self) -> TypeId Gets the TypeId of self. Read more",
	"impl<T> Borrow<T> for T where T: ?Sized,",
	"fn borrow(&self) -> &T Immutably borrows from an owned value. Read more",
	"impl<T> BorrowMut<T> for T where T: ?Sized,",
	"fn borrow_mut(&mut self) -> &mut T Mutably borrows from an owned value. Read more",
	"impl<T> From<T> for T",
	"fn from(t: T) -> T Returns the argument unchanged.",
	"impl<T, U> Into<U> for T where U: From<T>,",
	"fn into(self) -> U Calls U::from(self). Read more",
	"impl<I> IntoIterator for I where I: Iterator,",
	"type Item = <I as Iterator>::Item The type of the elements being iterated over.",
	"fn into_iter(self) -> I Creates an iterator from a value. Read more",
	"impl<T, U> TryFrom<U> for T where U: Into<T>,",
	"type Error = Infallible The type returned in the event of a conversion error.",
	"fn try_from(value: U) -> Result<T, <T as TryFrom<U>>::Error> Performs the conversion.",
}

// iterStruct is the page of an iterator type: its declaration, a summary,
// the Iterator implementation with every provided method, its auto
// traits and the blanket implementations.
func iterStruct(name, generics, summary, more, elem string) item {
	ty := name + generics
	return item{kind: "struct", name: name, summary: summary, body: func(string) []block {
		b := []block{
			pre("pub struct " + ty + " { /* private fields */ }"),
			para(summary), para(more),
			h2("Trait Implementations"),
			para("impl" + generics + " Clone for " + ty),
			para("impl" + generics + " Debug for " + ty),
			para("impl" + generics + " Iterator for " + ty),
			para("type Item = " + elem + " The type of the elements being iterated over."),
			para("fn next(&mut self) -> Option<" + elem + "> Advances the iterator and returns the next value. Read more"),
		}
		for _, m := range provided {
			b = append(b, para(m))
		}
		b = append(b, h2("Auto Trait Implementations"),
			para("impl"+generics+" RefUnwindSafe for "+ty), para("impl"+generics+" Send for "+ty),
			para("impl"+generics+" Sync for "+ty), para("impl"+generics+" Unpin for "+ty),
			h2("Blanket Implementations"))
		for _, m := range blanket {
			b = append(b, para(m))
		}
		return b
	}}
}

// function is the page of a free function: its signature, a summary, more
// text and an example.
func function(name, sig, summary, more, example string) item {
	return item{kind: "fn", name: name, summary: summary, body: func(string) []block {
		return []block{pre(sig), para(summary), para(more), h2("Examples"), pre(example)}
	}}
}

// trait is the page of a trait: its declaration, summary, required and
// provided methods.
func trait(name, decl, summary, more string, methods []string) item {
	return item{kind: "trait", name: name, summary: summary, body: func(string) []block {
		b := []block{pre(decl), para(summary), para(more), h2("Required Methods")}
		for _, m := range methods {
			b = append(b, para(m))
		}
		return b
	}}
}

// iterItems are the items of core::iter (and std::iter).
func iterItems() []item {
	items := []item{
		iterStruct("Map", "<I, F>", "An iterator that maps the values of iter with f.", "This struct is created by the map method on Iterator. See its documentation for more.", "B"),
		iterStruct("Filter", "<I, P>", "An iterator that filters the elements of iter with predicate.", "This struct is created by the filter method on Iterator. See its documentation for more.", "I::Item"),
		iterStruct("FilterMap", "<I, F>", "An iterator that uses f to both filter and map elements from iter.", "This struct is created by the filter_map method on Iterator. See its documentation for more.", "B"),
		iterStruct("Chain", "<A, B>", "An iterator that links two iterators together, in a chain.", "This struct is created by Iterator::chain. See its documentation for more.", "A::Item"),
		iterStruct("Zip", "<A, B>", "An iterator that iterates two other iterators simultaneously.", "This struct is created by zip or Iterator::zip. See their documentation for more.", "(A::Item, B::Item)"),
		iterStruct("Rev", "<T>", "A double-ended iterator with the direction inverted.", "This struct is created by the rev method on Iterator. See its documentation for more.", "T::Item"),
		iterStruct("Skip", "<I>", "An iterator that skips over n elements of iter.", "This struct is created by the skip method on Iterator. See its documentation for more.", "I::Item"),
		iterStruct("Take", "<I>", "An iterator that only iterates over the first n iterations of iter.", "This struct is created by the take method on Iterator. See its documentation for more.", "I::Item"),
		iterStruct("Enumerate", "<I>", "An iterator that yields the current count and the element during iteration.", "This struct is created by the enumerate method on Iterator. See its documentation for more.", "(usize, I::Item)"),
		iterStruct("Peekable", "<I>", "An iterator with a peek() that returns an optional reference to the next element.", "This struct is created by the peekable method on Iterator. See its documentation for more.", "I::Item"),
		iterStruct("StepBy", "<I>", "An iterator for stepping iterators by a custom amount.", "This struct is created by the step_by method on Iterator. See its documentation for more.", "I::Item"),
		iterStruct("Cycle", "<I>", "An iterator that repeats endlessly.", "This struct is created by the cycle method on Iterator. See its documentation for more.", "I::Item"),
		iterStruct("Fuse", "<I>", "An iterator that yields None forever after the underlying iterator yields None once.", "This struct is created by Iterator::fuse. See its documentation for more.", "I::Item"),
		iterStruct("Inspect", "<I, F>", "An iterator that calls a function with a reference to each element before yielding it.", "This struct is created by the inspect method on Iterator. See its documentation for more.", "I::Item"),
		trait("Iterator", "pub trait Iterator { type Item; fn next(&mut self) -> Option<Self::Item>; }",
			"An interface for dealing with iterators.",
			"This is the main iterator trait. For more about the concept of iterators generally, please see the module-level documentation. In particular, you may want to know how to implement Iterator.",
			append([]string{"type Item The type of the elements being iterated over.", "fn next(&mut self) -> Option<Self::Item> Advances the iterator and returns the next value."}, provided[:12]...)),
		trait("DoubleEndedIterator", "pub trait DoubleEndedIterator: Iterator { fn next_back(&mut self) -> Option<Self::Item>; }",
			"An iterator able to yield elements from both ends.",
			"Something that implements DoubleEndedIterator has one extra capability over something that implements Iterator: the ability to also take Items from the back, as well as the front.",
			[]string{"fn next_back(&mut self) -> Option<Self::Item> Removes and returns an element from the end of the iterator.", "fn rfold<B, F>(self, init: B, f: F) -> B An iterator method that reduces the iterator’s elements to a single, final value, starting from the back."}),
		trait("ExactSizeIterator", "pub trait ExactSizeIterator: Iterator { fn len(&self) -> usize { ... } }",
			"An iterator that knows its exact length.",
			"Many Iterators don’t know how many times they will iterate, but some do. If an iterator knows how many times it can iterate, providing access to that information can be useful.",
			[]string{"fn len(&self) -> usize Returns the exact remaining length of the iterator.", "fn is_empty(&self) -> bool Returns true if the iterator is empty."}),
		trait("FromIterator", "pub trait FromIterator<A>: Sized { fn from_iter<T>(iter: T) -> Self where T: IntoIterator<Item = A>; }",
			"Conversion from an Iterator.",
			"By implementing FromIterator for a type, you define how it will be created from an iterator. This is common for types which describe a collection of some kind.",
			[]string{"fn from_iter<T>(iter: T) -> Self Creates a value from an iterator."}),
		function("once", "pub fn once<T>(value: T) -> Once<T>", "Creates an iterator that yields an element exactly once.",
			"This is commonly used to adapt a single value into a chain of other kinds of iteration. Maybe you have an iterator that covers almost everything, but you need an extra special case.",
			"let mut one = std::iter::once(1);\nassert_eq!(Some(1), one.next());\nassert_eq!(None, one.next());"),
		function("repeat", "pub fn repeat<T: Clone>(elt: T) -> Repeat<T>", "Creates a new iterator that endlessly repeats a single element.",
			"The repeat function repeats a single value over and over again. Infinite iterators like repeat are often used with adapters like Iterator::take, in order to make them finite.",
			"let mut fours = std::iter::repeat(4);\nassert_eq!(Some(4), fours.next());"),
		function("empty", "pub const fn empty<T>() -> Empty<T>", "Creates an iterator that yields nothing.",
			"An empty iterator is useful where a function must return an iterator of some type but has nothing to give, or as the neutral start of a chain.",
			"let mut nope = std::iter::empty::<i32>();\nassert_eq!(None, nope.next());"),
		function("from_fn", "pub fn from_fn<T, F>(f: F) -> FromFn<F> where F: FnMut() -> Option<T>,", "Creates a new iterator where each iteration calls the provided closure F: FnMut() -> Option<T>.",
			"This allows creating a custom iterator with any behavior without using the more verbose syntax of creating a dedicated type and implementing the Iterator trait for it.",
			"let mut count = 0;\nlet counter = std::iter::from_fn(move || { count += 1; if count < 6 { Some(count) } else { None } });"),
		function("successors", "pub fn successors<T, F>(first: Option<T>, succ: F) -> Successors<T, F> where F: FnMut(&T) -> Option<T>,", "Creates a new iterator where each successive item is computed based on the preceding one.",
			"The iterator starts with the given first item (if any) and calls the given FnMut(&T) -> Option<T> closure to compute each item’s successor.",
			"let powers_of_10 = successors(Some(1_u16), |n| n.checked_mul(10));"),
	}
	return items
}

// charItems are the items of core::char (and std::char).
func charItems() []item {
	esc := func(name, summary, more string) item {
		return iterStruct(name, "", summary, more, "char")
	}
	return []item{
		esc("EscapeDefault", "An iterator that yields the literal escape code of a char.",
			"This struct is created by the escape_default method on char. See its documentation for more."),
		esc("EscapeUnicode", "Returns an iterator that yields the hexadecimal Unicode escape of a character, as chars.",
			"This struct is created by the escape_unicode method on char. See its documentation for more."),
		esc("EscapeDebug", "An iterator that yields the literal escape code of a char.",
			"This struct is created by the escape_debug method on char. See its documentation for more."),
		esc("ToLowercase", "Returns an iterator that yields the lowercase equivalent of a char.",
			"This struct is created by the to_lowercase method on char. See its documentation for more."),
		esc("ToUppercase", "Returns an iterator that yields the uppercase equivalent of a char.",
			"This struct is created by the to_uppercase method on char. See its documentation for more."),
		function("from_u32", "pub const fn from_u32(i: u32) -> Option<char>", "Converts a u32 to a char.",
			"Note that all chars are valid u32s, and can be cast to one with as. However, the reverse is not true: not all valid u32s are valid chars. from_u32 will return None if the input is not a valid value for a char.",
			"let c = char::from_u32(0x2764);\nassert_eq!(Some('❤'), c);"),
		function("from_digit", "pub const fn from_digit(num: u32, radix: u32) -> Option<char>", "Converts a digit in the given radix to a char.",
			"A ‘radix’ here is sometimes also called a ‘base’. A radix of two indicates a binary number, a radix of ten, decimal, and a radix of sixteen, hexadecimal, to give some common values.",
			"let c = char::from_digit(4, 10);\nassert_eq!(Some('4'), c);"),
	}
}
