package e2e

import (
	"net"
	"net/http"
	"time"
)

// clientFrom returns an HTTP client whose connections come from the
// loopback address ip (Linux routes all of 127.0.0.0/8 to the loopback
// interface), so that the server's limiter counts it as a client of its
// own: the load tests' clients are different people, the abuse test's
// attacker one. conns is how many keep-alive connections it keeps.
func clientFrom(ip string, conns int, timeout time.Duration) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: timeout, Transport: &http.Transport{DialContext: d.DialContext,
		MaxIdleConns: conns, MaxIdleConnsPerHost: conns, IdleConnTimeout: time.Minute}}
}
