package lang

import (
	"strings"
	"testing"

	"github.com/doppel-search/doppel/internal/tokens"
)

func TestDetect(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"english", "This page explains how the server is configured to listen on the addresses and ports that you choose, and what happens when it is restarted. It is one of the pages of the manual that you should read first." + "\n\n" + "This page explains how the server is configured to listen on the addresses and ports that you choose, and what happens when it is restarted. It is one of the pages of the manual that you should read first.", "en"},
		{"german", "Diese Seite erklärt, wie der Server eingerichtet wird, damit er auf den Adressen und Ports lauscht, die Sie wählen, und was geschieht, wenn er neu gestartet wird. Sie ist eine der Seiten, die man zuerst lesen sollte." + "\n\n" + "Diese Seite erklärt, wie der Server eingerichtet wird, damit er auf den Adressen und Ports lauscht, die Sie wählen, und was geschieht, wenn er neu gestartet wird. Sie ist eine der Seiten, die man zuerst lesen sollte.", "de"},
		{"french", "Cette page explique comment le serveur est configuré pour écouter sur les adresses et les ports que vous choisissez, et ce qui se passe lorsqu'il est redémarré. C'est une des pages du manuel que vous devriez lire en premier." + "\n\n" + "Cette page explique comment le serveur est configuré pour écouter sur les adresses et les ports que vous choisissez, et ce qui se passe lorsqu'il est redémarré. C'est une des pages du manuel que vous devriez lire en premier.", "fr"},
		{"spanish", "Esta página explica cómo se configura el servidor para que escuche en las direcciones y los puertos que usted elija, y lo que ocurre cuando se reinicia. Es una de las páginas del manual que debería leer primero." + "\n\n" + "Esta página explica cómo se configura el servidor para que escuche en las direcciones y los puertos que usted elija, y lo que ocurre cuando se reinicia. Es una de las páginas del manual que debería leer primero.", "es"},
		{"japanese", "このページでは、サーバが指定したアドレスとポートで待ち受けるように設定する方法と、再起動したときに何が起きるかを説明します。", "ja"},
		{"korean", "이 페이지는 서버가 선택한 주소와 포트에서 기다리도록 설정하는 방법과 다시 시작할 때 일어나는 일을 설명합니다.", "ko"},
		{"chinese", "本页说明如何配置服务器，使其在您选择的地址和端口上监听，以及重新启动时会发生什么。", "zh-hans"},
		{"code", "func main() { x := map[string]int{}; for k, v := range x { fmt.Println(k, v) } } java.io.File java.util.List", ""},
		{"short", "the end", ""},
		{"language list", strings.Repeat("de | en | es | fr | ja | ko | pt-br | tr | zh-cn | ", 20), ""},
		{"empty", "", ""},
	} {
		if got := Detect(tc.text); got != tc.want {
			t.Errorf("%s: Detect = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestDetectReadsTheBeginning: a long text is judged by its first words.
func TestDetectReadsTheBeginning(t *testing.T) {
	en := strings.Repeat("the page that you read is one of the pages of the manual and it is about the server ", 300)
	de := strings.Repeat("die Seite, die Sie lesen, ist eine der Seiten des Handbuchs und sie ist über den Server ", 300)
	if got := Detect(en + de); got != "en" {
		t.Errorf("English then German: %q, want en", got)
	}
	if got := Detect(de + en); got != "de" {
		t.Errorf("German then English: %q, want de", got)
	}
}

func FuzzDetect(f *testing.F) {
	f.Add("This page explains how the server is configured.")
	f.Add("このページでは説明します")
	f.Add("\xff\xfe de la le")
	f.Fuzz(func(t *testing.T, s string) {
		got := Detect(s)
		if got != "" && Primary(got) != got {
			t.Errorf("Detect(%q) = %q, not a primary subtag", s, got)
		}
	})
}

// BenchmarkDetect: detection against its floor, the tokenizer's pass over
// the same text (Detect reads at most 3,000 words of it).
func BenchmarkDetect(b *testing.B) {
	text := strings.Repeat("This page explains how the server is configured to listen on the addresses and ports that you choose. ", 150)
	b.Run("detect", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			if Detect(text) != "en" {
				b.Fatal("not English")
			}
		}
	})
	b.Run("tokenize-floor", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			n := 0
			tokens.Scan(text, func(int, int, bool) { n++ })
		}
	})
}
