package crawler

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/doppel-search/doppel/crawler/login"
)

// Error classes: what kind of failure a fetch met, as the crawl's
// counters, the seed check and the metrics name it.
const (
	ClassRefused = "refused" // nothing listens at the address
	ClassDNS     = "dns"     // no such host
	ClassTLS     = "tls"     // the certificate or the handshake failed
	ClassTimeout = "timeout" // no answer in time
	ClassReset   = "reset"   // the connection broke off
	ClassHTTP4xx = "http_4xx"
	ClassHTTP5xx = "http_5xx" // also 429 Too Many Requests
	ClassLogin   = "login"    // a login's credentials or session refused (package login)
	ClassOther   = "other"
)

// failure reads a fetch error (no HTTP answer) as a reason people read,
// its class, and whether it may pass: a refused or broken connection, a
// timeout, a DNS server's temporary failure or a login refused (a
// session that could not be renewed: the page is kept, never read as
// gone) may; a host that does not exist or a certificate that is not
// trusted will not by waiting, and is not retried.
func failure(err error) (reason, class string, transient bool) {
	var dns *net.DNSError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	var record tls.RecordHeaderError
	var alert tls.AlertError
	var nerr net.Error
	var lerr *login.Error
	switch {
	case errors.As(err, &lerr):
		return lerr.Error(), ClassLogin, true
	case errors.As(err, &dns) && dns.IsNotFound:
		return fmt.Sprintf("no such host %s", dns.Name), ClassDNS, false
	case errors.As(err, &dns):
		return fmt.Sprintf("DNS lookup of %s failed: %s", dns.Name, dns.Err), ClassDNS, true
	case errors.As(err, &unknown), errors.As(err, &host), errors.As(err, &invalid), errors.As(err, &verify):
		return "TLS: " + tlsMessage(err), ClassTLS, false
	case errors.As(err, &record):
		return "TLS: the server does not speak TLS (is the URL http://?)", ClassTLS, false
	case errors.As(err, &alert):
		return "TLS: the server refused the handshake: " + alert.Error(), ClassTLS, false
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused", ClassRefused, true
	case errors.As(err, &nerr) && nerr.Timeout():
		return "timed out", ClassTimeout, true
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection reset", ClassReset, true
	}
	return err.Error(), ClassOther, true
}

// tlsMessage is the certificate error of err without the request that
// met it (`Get "https://…": `).
func tlsMessage(err error) string {
	s := err.Error()
	if i := strings.Index(s, "tls: "); i >= 0 {
		return s[i+len("tls: "):]
	}
	if i := strings.Index(s, "x509: "); i >= 0 {
		return s[i:]
	}
	return s
}

// statusClass is the class of an HTTP error answer.
func statusClass(code int) string {
	if code == 429 || code >= 500 {
		return ClassHTTP5xx
	}
	return ClassHTTP4xx
}
