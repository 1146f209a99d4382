package redisx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
)

// serverErr is an error as a Redis server answers it (redis.Error).
type serverErr string

func (e serverErr) Error() string { return string(e) }
func (serverErr) RedisError()     {}

var _ redis.Error = serverErr("")

func TestTransient(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{serverErr("ERR wrong number of arguments"), false},
		{serverErr("NOSCRIPT No matching script"), false},
		{context.Canceled, false},
		{redis.Nil, false},
		{io.EOF, true},
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), true},
		{&net.OpError{Op: "read", Err: errors.New("reset")}, true},
		{serverErr("CLUSTERDOWN The cluster is down"), true},
		{serverErr("TRYAGAIN Multiple keys request during rehashing"), true},
		{serverErr("MOVED 3999 127.0.0.1:6381"), true},
		{serverErr("LOADING Redis is loading the dataset in memory"), true},
	}
	for _, tt := range tests {
		if got := Transient(tt.err); got != tt.want {
			t.Errorf("Transient(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestPrefix(t *testing.T) {
	for _, tt := range []struct{ in, want string }{{"", DefaultPrefix}, {"intranet", "intranet"}, {"a:b", "a:b"}} {
		if got, err := Prefix("p", tt.in); err != nil || got != tt.want {
			t.Errorf("Prefix(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"a{b", "}"} {
		if _, err := Prefix("p", bad); err == nil {
			t.Errorf("Prefix(%q) accepted a brace", bad)
		}
	}
}
