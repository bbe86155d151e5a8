// go-fasthttp: the restbench contract on fasthttp + easyjson-generated (un)marshalers + pgxpool,
// like seed 003's fasthttpeasyjson. The echo body is decoded into typed structs (package model).
package main

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"log"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mailru/easyjson"
	"github.com/valyala/fasthttp"

	"restbench/subjects/go-fasthttp/model"
)

const maxBody = 1 << 20

// fasthttp answers a body over Server.MaxRequestBodySize with 413 but closes the connection at once
// without draining it, so a client still sending usually gets a reset instead of the 413
// (valyala/fasthttp#1348). So fasthttp reads bodies up to readLimit and echo answers 413 over maxBody.
const readLimit = 4 * maxBody

var todos model.Todos

func init() {
	now := time.Now().UTC().Truncate(time.Millisecond)
	for _, t := range []string{"Do some stuff", "Do more stuff", "Even more stuff", "Yihaa",
		"Java is great! Or isn't it?", "Foo Bar", "Lorem ipsum", "Dolor sit amet"} {
		todos = append(todos, model.Todo{Title: t, CreatedAt: now})
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

func writeJSON(ctx *fasthttp.RequestCtx, v easyjson.Marshaler) {
	ctx.SetContentType("application/json")
	if _, err := easyjson.MarshalToWriter(v, ctx); err != nil {
		ctx.Error("internal error", fasthttp.StatusInternalServerError)
	}
}

func echo(ctx *fasthttp.RequestCtx) {
	data := ctx.PostBody() // bodies over readLimit never get here: errorHandler answers 413
	if len(data) > maxBody {
		ctx.Error("request body too large", fasthttp.StatusRequestEntityTooLarge)
		return
	}
	var body model.Body
	if err := easyjson.Unmarshal(data, &body); err != nil {
		ctx.Error("malformed JSON", fasthttp.StatusBadRequest)
		return
	}
	writeJSON(ctx, body)
}

// delayMax is the longest wait GET /delay/{ms} serves, in milliseconds.
const delayMax = 10_000

// delay serves GET /delay/{ms}: the ms back as text after waiting that long. fasthttp runs each
// connection's handler on a goroutine of its worker pool (up to Server.Concurrency, 256 Ki by
// default, so 10,000 waits fit), and time.Sleep parks that goroutine, not a thread.
func delay(ctx *fasthttp.RequestCtx, param string) {
	ms, ok := wholeNumber(param, delayMax)
	if !ok {
		ctx.Error("ms must be whole milliseconds 0..10000", fasthttp.StatusBadRequest)
		return
	}
	time.Sleep(time.Duration(ms) * time.Millisecond)
	ctx.SetContentType("text/plain; charset=utf-8")
	ctx.SetBodyString(strconv.Itoa(ms))
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

// staticFiles serves GET /static/{file} with fasthttp's own file server, fasthttp.FS, from the
// folder STATIC_DIR names: Content-Type by extension, Content-Length, Last-Modified (the mtime),
// 304 for an If-Modified-Since not older than the file, 404 for a name not in the folder; FS
// resolves names through os.Root, so none leads out of it, and fasthttp has already normalised
// "..", "%2e%2e" and the like out of ctx.Path(). Its defaults stand: files of up to 8 KiB are
// held in memory while their handle stays cached (10 s after the last request), larger ones are
// read from their open file (sendfile); no compression, ranges or index pages. Without
// STATIC_DIR every /static/ path is 404 (an empty Root would mean the working directory).
func staticFiles() fasthttp.RequestHandler {
	dir := os.Getenv("STATIC_DIR")
	if dir == "" {
		return func(ctx *fasthttp.RequestCtx) { ctx.Error("404 page not found", fasthttp.StatusNotFound) }
	}
	fs := &fasthttp.FS{
		Root:        dir,
		PathRewrite: fasthttp.NewPathSlashesStripper(1), // "/static/app.js" -> "/app.js"
	}
	return fs.NewRequestHandler()
}

// upload serves POST /upload: "<length> <CRC-32>" of the body fasthttp read (whole, chunked or
// not; bodies over readLimit never get here), by hash/crc32's IEEE table (zlib's and gzip's CRC).
func upload(ctx *fasthttp.RequestCtx) {
	data := ctx.PostBody()
	if len(data) > maxBody {
		ctx.Error("request body too large", fasthttp.StatusRequestEntityTooLarge)
		return
	}
	ctx.SetContentType("text/plain; charset=utf-8")
	ctx.SetBodyString(fmt.Sprintf("%d %08x", len(data), crc32.ChecksumIEEE(data)))
}

// downloadMax is the most GET /download/{n} serves, in bytes (10 MiB).
const downloadMax = 10 << 20

// downloadBytes is byte i = i mod 256 for every i below downloadMax, made once at start-up: an
// answer is its first n bytes, handed to fasthttp without a copy (SetBodyRaw; never changed).
var downloadBytes = func() []byte {
	b := make([]byte, downloadMax)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}()

// download serves GET /download/{n}: n bytes of application/octet-stream.
func download(ctx *fasthttp.RequestCtx, param string) {
	n, ok := wholeNumber(param, downloadMax)
	if !ok {
		ctx.Error("n must be whole bytes 0..10485760", fasthttp.StatusBadRequest)
		return
	}
	ctx.SetContentType("application/octet-stream")
	ctx.Response.SetBodyRaw(downloadBytes[:n])
}

const usersSQL = `SELECT id, username, name, sex, address, mail, birthdate FROM "user"`

func users(ctx *fasthttp.RequestCtx, pool *pgxpool.Pool) {
	if pool == nil {
		ctx.Error("database not configured", fasthttp.StatusServiceUnavailable)
		return
	}
	// Bounds pool acquire + connect + query: a dead database gives 503 within ~2 s.
	dbctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	rows, err := pool.Query(dbctx, usersSQL) // pgx prepares and caches the statement per connection
	if err != nil {
		ctx.Error("database unavailable", fasthttp.StatusServiceUnavailable)
		return
	}
	defer rows.Close()
	list := make(model.Users, 0, 100)
	for rows.Next() {
		var u model.User
		if err := rows.Scan(&u.ID, &u.Username, &u.Name, &u.Sex, &u.Address, &u.Mail, &u.Birthdate); err != nil {
			ctx.Error("database error", fasthttp.StatusServiceUnavailable)
			return
		}
		u.Address = caesar(u.Address)
		list = append(list, u)
	}
	if rows.Err() != nil {
		ctx.Error("database unavailable", fasthttp.StatusServiceUnavailable)
		return
	}
	writeJSON(ctx, list)
}

func router(pool *pgxpool.Pool) fasthttp.RequestHandler {
	tfb := newTechEmpower(pool)
	techEmpower := map[string]fasthttp.RequestHandler{
		"/json": tfb.Json, "/db": tfb.Db, "/queries": tfb.Queries, "/fortunes": tfb.Fortunes,
		"/updates": tfb.Updates, "/cached-queries": tfb.CachedQueries,
	}
	// fasthttp's own compression on /rest/todo only, where json-gzip asks for it: brotli when
	// Accept-Encoding takes br (fasthttp prefers it), else gzip, deflate or zstd, with Vary; it
	// skips bodies under 200 bytes, and todo's is about 500.
	todoHandler := fasthttp.CompressHandlerBrotliLevel(func(ctx *fasthttp.RequestCtx) { writeJSON(ctx, todos) },
		fasthttp.CompressBrotliDefaultCompression, fasthttp.CompressDefaultCompression)
	static := staticFiles()
	return func(ctx *fasthttp.RequestCtx) {
		defer func() { // fasthttp does no panic recovery of its own
			if recover() != nil {
				ctx.Error("internal error", fasthttp.StatusInternalServerError)
			}
		}()
		switch path, get := string(ctx.Path()), ctx.IsGet(); {
		case path == "/api/test" && get:
			ctx.SetContentType("text/plain; charset=utf-8")
			ctx.SetBodyString("Hello, World!")
		case path == "/rest/todo" && get:
			todoHandler(ctx)
		case path == "/echo" && ctx.IsPost():
			echo(ctx)
		case path == "/users" && get:
			users(ctx, pool)
		case strings.HasPrefix(path, "/delay/") && get:
			delay(ctx, path[len("/delay/"):])
		case techEmpower[path] != nil && get:
			techEmpower[path](ctx)
		case strings.HasPrefix(path, "/static/") && get:
			static(ctx)
		case path == "/upload" && ctx.IsPost():
			upload(ctx)
		case strings.HasPrefix(path, "/download/") && get:
			download(ctx, path[len("/download/"):])
		case path == "/api/test", path == "/rest/todo", path == "/echo", path == "/users", techEmpower[path] != nil,
			strings.HasPrefix(path, "/delay/"), strings.HasPrefix(path, "/static/"), path == "/upload",
			strings.HasPrefix(path, "/download/"):
			ctx.Error("Method Not Allowed", fasthttp.StatusMethodNotAllowed)
		default:
			ctx.Error("404 page not found", fasthttp.StatusNotFound)
		}
	}
}

// errorHandler answers requests fasthttp could not read; its default turns an oversized body into 400.
func errorHandler(ctx *fasthttp.RequestCtx, err error) {
	var small *fasthttp.ErrSmallBuffer
	var netErr net.Error
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		ctx.Error("request body too large", fasthttp.StatusRequestEntityTooLarge)
	case errors.As(err, &small):
		ctx.Error("request header too large", fasthttp.StatusRequestHeaderFieldsTooLarge)
	case errors.As(err, &netErr) && netErr.Timeout():
		ctx.Error("request timeout", fasthttp.StatusRequestTimeout)
	default:
		ctx.Error("bad request", fasthttp.StatusBadRequest)
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

func main() {
	log.SetFlags(0)
	pool := newPool()

	srv := &fasthttp.Server{
		Handler:            router(pool),
		ErrorHandler:       errorHandler,
		MaxRequestBodySize: readLimit,
		ReadBufferSize:     16 << 10,         // also the request header size limit
		ReadTimeout:        10 * time.Second, // header + body; fasthttp has no separate header timeout
		IdleTimeout:        120 * time.Second,
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	addr := net.JoinHostPort(getenv("HOST", "127.0.0.1"), getenv("PORT", "8080"))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("go-fasthttp listening on %s", addr)
	go func() {
		if err := srv.Serve(ln); err != nil {
			log.Fatal(err)
		}
	}()
	<-ctx.Done()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.ShutdownWithContext(shutdownCtx)
	if pool != nil {
		pool.Close()
	}
}
