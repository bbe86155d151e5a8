// The standard library has no compression middleware, so gzipped is the small one net/http
// leaves to the application: it compresses a handler's answer per request with compress/gzip
// when the request's Accept-Encoding takes gzip, and says so with Content-Encoding and
// Vary: Accept-Encoding. The same file is in go-nethttp, go-nethttp-dynamic and go-easyjson.
package main

import (
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// gzipWriters recycles the compressors (their tables are large); every answer is compressed anew.
var gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

// gzipped wraps next, a handler that answers with a body. A short answer leaves net/http's
// buffer unfilled, so net/http frames it with its own Content-Length.
func gzipped(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Accept-Encoding") // the answer depends on it either way
		if !acceptsGzip(r.Header.Values("Accept-Encoding")) {
			next.ServeHTTP(w, r) // none, identity, or gzip;q=0: as it is
			return
		}
		gz := gzipWriters.Get().(*gzip.Writer)
		gz.Reset(w)
		gw := &gzipResponseWriter{ResponseWriter: w, gz: gz}
		next.ServeHTTP(gw, r)
		if gw.started {
			gz.Close() // the rest of the stream and gzip's trailer
		}
		gzipWriters.Put(gz)
	})
}

type gzipResponseWriter struct {
	http.ResponseWriter
	gz      *gzip.Writer
	started bool
}

func (w *gzipResponseWriter) WriteHeader(code int) {
	if !w.started {
		w.started = true
		h := w.Header()
		h.Del("Content-Length") // the uncompressed length
		h.Set("Content-Encoding", "gzip")
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *gzipResponseWriter) Write(b []byte) (int, error) {
	if !w.started {
		w.WriteHeader(http.StatusOK)
	}
	return w.gz.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *gzipResponseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// acceptsGzip reads Accept-Encoding as RFC 9110 section 12.5.3 does: gzip (or x-gzip) with a
// weight above 0, or else "*" with one; no header, or only identity, is no.
func acceptsGzip(values []string) bool {
	gzipQ, anyQ := -1.0, -1.0
	for _, v := range values {
		for v != "" {
			var member string
			member, v, _ = strings.Cut(v, ",")
			coding, params, _ := strings.Cut(member, ";")
			q := 1.0
			for params != "" {
				var param string
				param, params, _ = strings.Cut(params, ";")
				if name, value, ok := strings.Cut(param, "="); ok && strings.EqualFold(strings.TrimSpace(name), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil {
						q = f
					}
				}
			}
			switch coding = strings.TrimSpace(coding); {
			case strings.EqualFold(coding, "gzip"), strings.EqualFold(coding, "x-gzip"):
				gzipQ = q
			case coding == "*":
				anyQ = q
			}
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return anyQ > 0
}
