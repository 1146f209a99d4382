package dedup

import (
	"bufio"
	"encoding/json"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
)

func TestZZProf(t *testing.T) {
	path := os.Getenv("DOPPEL_SYNTH")
	if path == "" {
		t.Skip()
	}
	f, _ := os.Open(path)
	d, _ := New(nil, Options{SetsDir: t.TempDir()})
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	cf, _ := os.Create("/tmp/zz.cpu")
	pprof.StartCPUProfile(cf)
	for sc.Scan() {
		var doc struct{ ID, Text string }
		json.Unmarshal(sc.Bytes(), &doc)
		d.Add(Document{ID: doc.ID, Text: doc.Text})
	}
	pprof.StopCPUProfile()
	runtime.GC()
	hf, _ := os.Create("/tmp/zz.heap")
	pprof.WriteHeapProfile(hf)
	hf.Close()
	runtime.KeepAlive(d)
}
