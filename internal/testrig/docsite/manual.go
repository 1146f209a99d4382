package docsite

// Languages are the sections of the manual, as the Apache manual names
// them: /manual/LANG/.
var Languages = []string{"en", "de", "fr", "es", "it", "pt-br", "ru", "ja", "ko", "zh-cn"}

// topics are the manual's pages, by file name, in order.
var topics = []string{"bind", "configuring", "vhosts", "logs", "caching", "ssl"}

// titleSuffix ends every manual page's title, in every language.
const titleSuffix = " - Harbor HTTP Server Version 3.1"

// A manualText is one page of the manual in one language: its title (before
// titleSuffix), introduction, section heading and two paragraphs.
type manualText struct {
	title, intro, heading, body, more string
}

// chrome are the words of a section's template: the label of the
// language-switch links and the index page's title and introduction.
type chrome struct {
	available, index, indexIntro string
}

var chromes = map[string]chrome{
	"en":    {"Available Languages:", "Harbor HTTP Server Documentation", "This is the documentation of the Harbor HTTP server, version 3.1. Choose a topic below."},
	"de":    {"Verfügbare Sprachen:", "Dokumentation zum Harbor HTTP Server", "Dies ist die Dokumentation des Harbor HTTP Servers in der Version 3.1. Wählen Sie unten ein Thema aus."},
	"fr":    {"Langues Disponibles:", "Documentation du serveur HTTP Harbor", "Voici la documentation du serveur HTTP Harbor, version 3.1. Choisissez un sujet ci-dessous."},
	"es":    {"Idiomas disponibles:", "Documentación del servidor HTTP Harbor", "Esta es la documentación del servidor HTTP Harbor, versión 3.1. Elija un tema a continuación."},
	"it":    {"Lingue disponibili:", "Documentazione del server HTTP Harbor", "Questa è la documentazione del server HTTP Harbor, versione 3.1. Scegliete un argomento qui sotto."},
	"pt-br": {"Idiomas disponíveis:", "Documentação do servidor HTTP Harbor", "Esta é a documentação do servidor HTTP Harbor, versão 3.1. Escolha um assunto abaixo."},
	"ru":    {"Доступные языки:", "Документация HTTP-сервера Harbor", "Это документация HTTP-сервера Harbor версии 3.1. Выберите тему из списка ниже."},
	"ja":    {"翻訳済み言語:", "Harbor HTTP サーバ ドキュメント", "これは Harbor HTTP サーバ バージョン 3.1 のドキュメントです。下の一覧から項目を選んでください。"},
	"ko":    {"가능한 언어:", "Harbor HTTP 서버 문서", "Harbor HTTP 서버 3.1 버전의 문서입니다. 아래에서 주제를 고르십시오."},
	"zh-cn": {"可用语言:", "Harbor HTTP 服务器文档", "这是 Harbor HTTP 服务器 3.1 版的文档。请在下面选择一个主题。"},
}

// manualPages returns the manual: for each language, its index page, then
// its pages in the order of topics — translations where texts has one,
// English copies (lang="en") elsewhere.
func manualPages() []Page {
	var pages []Page
	for _, l := range Languages {
		c := chromes[l]
		index := Page{Path: "/manual/" + l + "/index.html", Title: c.index + titleSuffix, Lang: l, Translated: true}
		if l != "en" {
			index.Of = "/manual/en/index.html"
		}
		index.blocks = []block{h1(c.index), languageLinks("index", l), para(c.indexIntro)}
		var items []link
		for _, t := range topics {
			tx, ok := texts[l][t]
			if !ok {
				tx = texts["en"][t]
			}
			items = append(items, link{t + ".html", tx.title})
		}
		index.blocks = append(index.blocks, linkList(items)...)
		pages = append(pages, index)
		for _, t := range topics {
			tx, translated := texts[l][t]
			p := Page{Path: "/manual/" + l + "/" + t + ".html", Lang: l, Translated: translated}
			from := l
			if !translated {
				tx, from, p.Lang = texts["en"][t], "en", "en"
			}
			if l != "en" {
				p.Of = "/manual/en/" + t + ".html"
			}
			p.Title = tx.title + titleSuffix
			p.blocks = []block{h1(tx.title), languageLinks(t, from), para(tx.intro), h2(tx.heading), para(tx.body), para(tx.more), languageLinks(t, from)}
			pages = append(pages, p)
		}
	}
	return pages
}

// languageLinks is the line of links to the languages topic is written in,
// labelled in language from: "Available Languages: de | en | fr".
func languageLinks(topic, from string) block {
	b := block{tag: "p", parts: []link{{"", chromes[from].available + " "}}}
	first := true
	for _, l := range Languages {
		if _, ok := texts[l][topic]; !ok && topic != "index" {
			continue
		}
		if !first {
			b.parts = append(b.parts, link{"", " | "})
		}
		first = false
		b.parts = append(b.parts, link{"/manual/" + l + "/" + topic + ".html", l})
	}
	return b
}
