// go-gorilla: the restbench contract on gorilla/mux + encoding/json (typed echo structs) + pgxpool.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gorilla/handlers"
	"github.com/gorilla/mux"
	"github.com/jackc/pgx/v5/pgxpool"
)

// restbench:shared begin: from here to the end marker, this file is the same in go-chi,
// go-gorilla and go-nethttp (crates/harness/tests/it/subject_copies.rs checks it); change all three.

const maxBody = 1 << 20

// Seed 000 (dotchev/rest-bench server.go) body shape.
type Body struct {
	Colors []Color `json:"colors"`
}

type Color struct {
	Color    string `json:"color,omitempty"`
	Category string `json:"category,omitempty"`
	Type     string `json:"type,omitempty"`
	Code     Code   `json:"code,omitempty"`
}

type Code struct {
	RGBA []int  `json:"rgba,omitempty"`
	Hex  string `json:"hex,omitempty"`
}

type Todo struct {
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"createdAt"`
}

type User struct {
	ID        int       `json:"id"`
	Username  string    `json:"username"`
	Name      string    `json:"name"`
	Sex       string    `json:"sex"`
	Address   string    `json:"address"`
	Mail      string    `json:"mail"`
	Birthdate time.Time `json:"birthdate"`
}

var todos []Todo

func init() {
	now := time.Now().UTC().Truncate(time.Millisecond)
	for _, t := range []string{"Do some stuff", "Do more stuff", "Even more stuff", "Yihaa",
		"Java is great! Or isn't it?", "Foo Bar", "Lorem ipsum", "Dolor sit amet"} {
		todos = append(todos, Todo{Title: t, CreatedAt: now})
	}
}

// caesar is seed 003's cipher (key 14 on code points <= 127; others unchanged).
func caesar(s string) string {
	return strings.Map(func(r rune) rune {
		if r <= 127 {
			r += 14
			if r > 127 {
				r -= 26
			}
		}
		return r
	}, s)
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b)
}

func plaintext(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Length", "13")
	io.WriteString(w, "Hello, World!")
}

func todo(w http.ResponseWriter, r *http.Request) { writeJSON(w, todos) }

func echo(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > maxBody {
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "bad request", http.StatusBadRequest)
		}
		return
	}
	var body Body
	if err := json.Unmarshal(data, &body); err != nil {
		http.Error(w, "malformed JSON", http.StatusBadRequest)
		return
	}
	writeJSON(w, body)
}

// delayMax is the longest wait GET /delay/{ms} serves, in milliseconds.
const delayMax = 10_000

// delayHandler serves GET /delay/{ms}: the ms back as text after waiting that long. param reads
// the {ms} wildcard the router's own way ((*http.Request).PathValue, chi.URLParam, mux.Vars).
// time.Sleep parks only the request's goroutine on the runtime's timer: a wait holds no thread.
func delayHandler(param func(r *http.Request, name string) string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n, ok := wholeNumber(param(r, "ms"), delayMax)
		if !ok {
			http.Error(w, "ms must be whole milliseconds 0..10000", http.StatusBadRequest)
			return
		}
		time.Sleep(time.Duration(n) * time.Millisecond)
		body := strconv.Itoa(n)
		h := w.Header()
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		io.WriteString(w, body)
	}
}

// wholeNumber accepts decimal digits only, up to max (strconv.Atoi alone would take "+10" and "-0").
func wholeNumber(s string, max int) (int, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n <= max
}

// staticFiles serves GET /static/{file} from the folder STATIC_DIR names, read from disk per
// request by net/http's own file serving: http.ServeFile sets Content-Type by extension,
// Content-Length and Last-Modified (the mtime), answers If-Modified-Since with 304 and a Range
// with 206, and refuses a path with a ".." element (400). It runs under http.StripPrefix, so
// r.URL.Path is the bare file name: http.FileServer, which puts the leading slash back, answers
// every ".../index.html" with a redirect to "./" (ServeFile's doc: "modify the path or use
// ServeContent" to avoid it). Without STATIC_DIR every /static/ path is 404.
func staticFiles() http.Handler {
	dir := os.Getenv("STATIC_DIR")
	if dir == "" {
		return http.NotFoundHandler() // never the working directory
	}
	return http.StripPrefix("/static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.URL.Path
		if name == "" || strings.HasSuffix(name, "/") {
			http.NotFound(w, r) // a folder: no listings
			return
		}
		// A rooted path.Clean cannot climb above the folder (ServeFile's doc: sanitize the name).
		http.ServeFile(w, r, filepath.Join(dir, filepath.FromSlash(path.Clean("/"+name))))
	}))
}

// upload serves POST /upload: "<length> <CRC-32>" of the bytes read from the body, streamed
// through hash/crc32's IEEE table (zlib's and gzip's CRC), never taken from Content-Length.
func upload(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > maxBody {
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return
	}
	sum := crc32.NewIEEE()
	n, err := io.Copy(sum, http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "bad request", http.StatusBadRequest)
		}
		return
	}
	body := fmt.Sprintf("%d %08x", n, sum.Sum32())
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	io.WriteString(w, body)
}

// downloadMax is the most GET /download/{n} serves, in bytes (10 MiB).
const downloadMax = 10 << 20

// downloadBytes is byte i = i mod 256 for every i below downloadMax, made once at start-up: an
// answer is its first n bytes.
var downloadBytes = func() []byte {
	b := make([]byte, downloadMax)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}()

// downloadHandler serves GET /download/{n}: n bytes of application/octet-stream. param reads the
// {n} wildcard the router's own way, as for delayHandler.
func downloadHandler(param func(r *http.Request, name string) string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n, ok := wholeNumber(param(r, "n"), downloadMax)
		if !ok {
			http.Error(w, "n must be whole bytes 0..10485760", http.StatusBadRequest)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Content-Length", strconv.Itoa(n))
		w.Write(downloadBytes[:n])
	}
}

const usersSQL = `SELECT id, username, name, sex, address, mail, birthdate FROM "user"`

func usersHandler(pool *pgxpool.Pool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if pool == nil {
			http.Error(w, "database not configured", http.StatusServiceUnavailable)
			return
		}
		// Bounds pool acquire + connect + query: a dead database gives 503 within ~2 s.
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		rows, err := pool.Query(ctx, usersSQL) // pgx prepares and caches the statement per connection
		if err != nil {
			http.Error(w, "database unavailable", http.StatusServiceUnavailable)
			return
		}
		defer rows.Close()
		users := make([]User, 0, 100)
		for rows.Next() {
			var u User
			if err := rows.Scan(&u.ID, &u.Username, &u.Name, &u.Sex, &u.Address, &u.Mail, &u.Birthdate); err != nil {
				http.Error(w, "database error", http.StatusServiceUnavailable)
				return
			}
			u.Address = caesar(u.Address)
			users = append(users, u)
		}
		if rows.Err() != nil {
			http.Error(w, "database unavailable", http.StatusServiceUnavailable)
			return
		}
		writeJSON(w, users)
	}
}

func newPool() *pgxpool.Pool {
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		return nil
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		log.Fatalf("DATABASE_URL: %v", err)
	}
	cfg.MaxConns = 100
	if n, err := strconv.Atoi(os.Getenv("DB_POOL_SIZE")); err == nil && n > 0 {
		cfg.MaxConns = int32(n)
	}
	cfg.ConnConfig.ConnectTimeout = 2 * time.Second
	// The server cancels a query stuck on a lock after 2 s: 503, and the connection is free again.
	cfg.ConnConfig.RuntimeParams["statement_timeout"] = "2000"
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg) // connects lazily: starts with the DB down
	if err != nil {
		log.Fatalf("pool: %v", err)
	}
	return pool
}

func getenv(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// restbench:shared end

// muxVar reads a route variable as gorilla/mux documents it, through mux.Vars.
func muxVar(r *http.Request, name string) string { return mux.Vars(r)[name] }

func main() {
	log.SetFlags(0)
	pool := newPool()

	r := mux.NewRouter()
	r.HandleFunc("/api/test", plaintext).Methods(http.MethodGet)
	// gorilla/handlers' CompressHandler on this route only, where json-gzip asks for it: gzip (or
	// deflate) per Accept-Encoding, Vary always set; it has no minimum size.
	r.Handle("/rest/todo", handlers.CompressHandler(http.HandlerFunc(todo))).Methods(http.MethodGet)
	r.HandleFunc("/echo", echo).Methods(http.MethodPost)
	r.HandleFunc("/users", usersHandler(pool)).Methods(http.MethodGet)
	r.HandleFunc("/delay/{ms}", delayHandler(muxVar)).Methods(http.MethodGet)
	r.PathPrefix("/static/").Handler(staticFiles()).Methods(http.MethodGet)
	r.HandleFunc("/upload", upload).Methods(http.MethodPost)
	r.HandleFunc("/download/{n}", downloadHandler(muxVar)).Methods(http.MethodGet)
	tfb := newTechEmpower(pool, "gorilla/mux")
	r.HandleFunc("/json", tfb.Json).Methods(http.MethodGet)
	r.HandleFunc("/db", tfb.Db).Methods(http.MethodGet)
	r.HandleFunc("/queries", tfb.Queries).Methods(http.MethodGet)
	r.HandleFunc("/fortunes", tfb.Fortunes).Methods(http.MethodGet)
	r.HandleFunc("/updates", tfb.Updates).Methods(http.MethodGet)
	r.HandleFunc("/cached-queries", tfb.CachedQueries).Methods(http.MethodGet)

	srv := &http.Server{
		Addr:              net.JoinHostPort(getenv("HOST", "127.0.0.1"), getenv("PORT", "8080")),
		Handler:           r,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    16 << 10,
	}
	// HTTP/1.1 and h2c (HTTP/2 with prior knowledge) on the one port, as net/http documents
	// since Go 1.24 (golang.org/x/net/http2/h2c is deprecated in its favour): the server tells
	// them apart by the connection preface, once per connection.
	srv.Protocols = new(http.Protocols)
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", srv.Addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("go-gorilla listening on %s", srv.Addr)
	go func() {
		if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			log.Fatal(err)
		}
	}()
	<-ctx.Done()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(shutdownCtx)
	if pool != nil {
		pool.Close()
	}
}
