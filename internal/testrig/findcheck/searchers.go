package findcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/doppel-search/doppel/internal/lang"
	"github.com/doppel-search/doppel/ranking"
)

// HTTP asks the web JSON API of a running server at Base ("http://host:port")
// as the script does: GET Base/api/search?q=…&size=10.
type HTTP struct {
	Base   string
	Client *http.Client // default http.DefaultClient
}

// Search implements Searcher.
func (s HTTP) Search(ctx context.Context, query, acceptLanguage string) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", s.Base+"/api/search?"+searchQuery(query), nil)
	if err != nil {
		return nil, err
	}
	if acceptLanguage != "" {
		req.Header.Set("Accept-Language", acceptLanguage)
	}
	c := s.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return decode(resp.StatusCode, json.NewDecoder(resp.Body))
}

// Handler asks a web handler (web.Server) in the same process, through
// its JSON API as HTTP does, with no network in between.
type Handler struct{ H http.Handler }

// Search implements Searcher.
func (s Handler) Search(ctx context.Context, query, acceptLanguage string) ([]string, error) {
	req := httptest.NewRequestWithContext(ctx, "GET", "/api/search?"+searchQuery(query), nil)
	req.RemoteAddr = "127.0.0.1:1"
	if acceptLanguage != "" {
		req.Header.Set("Accept-Language", acceptLanguage)
	}
	rec := httptest.NewRecorder()
	s.H.ServeHTTP(rec, req)
	return decode(rec.Code, json.NewDecoder(rec.Body))
}

func searchQuery(q string) string { return url.Values{"q": {q}, "size": {"10"}}.Encode() }

// decode reads the hits' URLs of a JSON answer.
func decode(status int, dec *json.Decoder) ([]string, error) {
	if status != http.StatusOK {
		return nil, fmt.Errorf("findcheck: status %d", status)
	}
	var res struct {
		Hits []struct {
			URL string `json:"url"`
		} `json:"hits"`
	}
	if err := dec.Decode(&res); err != nil {
		return nil, fmt.Errorf("findcheck: %w", err)
	}
	out := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = h.URL
	}
	return out, nil
}

// Ranking asks a ranking.Searcher directly, as the web API would for an
// anonymous user: the query in plain syntax, 10 results, the languages of
// the Accept-Language header.
type Ranking struct{ S *ranking.Searcher }

// Search implements Searcher.
func (s Ranking) Search(ctx context.Context, query, acceptLanguage string) ([]string, error) {
	res, err := s.S.Search(ctx, ranking.Request{Query: query, Size: 10, Languages: lang.Accepted(acceptLanguage)})
	if err != nil {
		return nil, err
	}
	out := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = h.URL
	}
	return out, nil
}

var (
	_ Searcher = HTTP{}
	_ Searcher = Handler{}
	_ Searcher = Ranking{}
)
