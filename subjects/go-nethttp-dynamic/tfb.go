// TechEmpower's six test types over the same pgxpool as /users: json, db, queries, fortunes,
// updates and cached-queries, each answered with a Server header (TechEmpower requires one;
// net/http adds Date). Every World row is its own query, which pgx prepares once per
// connection and reuses (its default QueryExecModeCacheStatement); the fortunes page is
// html/template, whose contextual auto-escaping escapes the <script> row; cached-queries read
// through hashicorp/golang-lru, filled from CachedWorld on a miss.
//
// This file is the same in go-nethttp, go-chi, go-gorilla and go-nethttp-dynamic
// (crates/harness/tests/it/subject_copies.rs checks it); change all four.
package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"html/template"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	worldSQL    = "SELECT id, randomNumber FROM World WHERE id = $1"
	fortunesSQL = "SELECT id, message FROM Fortune"
	cachedSQL   = "SELECT id, randomNumber FROM CachedWorld WHERE id = $1"
	// One statement for all the rows of a request (TechEmpower allows batched updates, not reads).
	updateSQL = "UPDATE World SET randomNumber = v.r " +
		"FROM (SELECT * FROM UNNEST($1::int4[], $2::int4[]) AS t(id, r)) AS v WHERE World.id = v.id"
	htmlType = "text/html; charset=utf-8"
)

type World struct {
	ID           int32 `json:"id"`
	RandomNumber int32 `json:"randomNumber"`
}

type Fortune struct {
	ID      int32
	Message string
}

type Message struct {
	Message string `json:"message"`
}

//go:embed templates/fortunes.html
var fortunesHTML string

var fortunesPage = template.Must(template.New("fortunes").Parse(fortunesHTML))

// TechEmpower serves the six types of one subject; server names it in the Server header.
type TechEmpower struct {
	pool   *pgxpool.Pool
	cache  *lru.Cache[int32, World]
	server string
}

func newTechEmpower(pool *pgxpool.Pool, server string) *TechEmpower {
	cache, err := lru.New[int32, World](10_000) // CachedWorld has 10,000 rows: all of them fit
	if err != nil {
		panic(err) // only for a size <= 0
	}
	return &TechEmpower{pool: pool, cache: cache, server: server}
}

// count is `name` of the query string clamped to 1..500; missing or not a number is 1.
func count(r *http.Request, name string) int {
	n, err := strconv.Atoi(r.URL.Query().Get(name))
	if err != nil || n < 1 {
		return 1
	}
	return min(n, 500)
}

// randomID is an id or a number in 1..10,000 (math/rand/v2's generator is safe across goroutines).
func randomID() int32 { return rand.Int32N(10_000) + 1 }

func (t *TechEmpower) send(w http.ResponseWriter, contentType string, body []byte) {
	h := w.Header()
	h.Set("Server", t.server)
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

func (t *TechEmpower) sendJSON(w http.ResponseWriter, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	t.send(w, "application/json", body)
}

// Json answers {"message":"Hello, World!"} from an object serialized now.
func (t *TechEmpower) Json(w http.ResponseWriter, r *http.Request) {
	t.sendJSON(w, Message{Message: "Hello, World!"})
}

// database bounds acquire + connect + queries (500 rows take more than /users's 2 s may
// allow under load; each statement still has the 2 s statement_timeout): a dead database gives 503.
func (t *TechEmpower) database(w http.ResponseWriter, r *http.Request) (context.Context, context.CancelFunc, bool) {
	if t.pool == nil {
		http.Error(w, "database not configured", http.StatusServiceUnavailable)
		return nil, nil, false
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	return ctx, cancel, true
}

// worlds reads n random World rows on one connection, each its own query.
func (t *TechEmpower) worlds(ctx context.Context, n int) ([]World, error) {
	conn, err := t.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	rows := make([]World, n)
	for i := range rows {
		if err := conn.QueryRow(ctx, worldSQL, randomID()).Scan(&rows[i].ID, &rows[i].RandomNumber); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

func (t *TechEmpower) Db(w http.ResponseWriter, r *http.Request) {
	ctx, cancel, ok := t.database(w, r)
	if !ok {
		return
	}
	defer cancel()
	rows, err := t.worlds(ctx, 1)
	if err != nil {
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	t.sendJSON(w, rows[0])
}

func (t *TechEmpower) Queries(w http.ResponseWriter, r *http.Request) {
	ctx, cancel, ok := t.database(w, r)
	if !ok {
		return
	}
	defer cancel()
	rows, err := t.worlds(ctx, count(r, "queries"))
	if err != nil {
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	t.sendJSON(w, rows)
}

// Fortunes answers every fortune and one added, sorted by message here, rendered by html/template.
func (t *TechEmpower) Fortunes(w http.ResponseWriter, r *http.Request) {
	ctx, cancel, ok := t.database(w, r)
	if !ok {
		return
	}
	defer cancel()
	rows, err := t.pool.Query(ctx, fortunesSQL)
	if err != nil {
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	fortunes, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Fortune, error) {
		var f Fortune
		err := row.Scan(&f.ID, &f.Message)
		return f, err
	})
	if err != nil {
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	fortunes = append(fortunes, Fortune{ID: 0, Message: "Additional fortune added at request time."})
	slices.SortFunc(fortunes, func(a, b Fortune) int { return strings.Compare(a.Message, b.Message) })
	var page bytes.Buffer
	if err := fortunesPage.Execute(&page, fortunes); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	t.send(w, htmlType, page.Bytes())
}

// Updates reads n rows one query each, gives each a new number and writes them in one
// statement before the answer (an id drawn twice keeps its last number, the one answered last).
func (t *TechEmpower) Updates(w http.ResponseWriter, r *http.Request) {
	ctx, cancel, ok := t.database(w, r)
	if !ok {
		return
	}
	defer cancel()
	rows, err := t.worlds(ctx, count(r, "queries"))
	if err != nil {
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	last := make(map[int32]int32, len(rows))
	for i := range rows {
		rows[i].RandomNumber = randomID()
		last[rows[i].ID] = rows[i].RandomNumber
	}
	ids := make([]int32, 0, len(last))
	for id := range last {
		ids = append(ids, id)
	}
	// One lock order for every request (a map's order is random): two updates that lock
	// their rows in id order cannot deadlock each other.
	slices.Sort(ids)
	numbers := make([]int32, 0, len(ids))
	for _, id := range ids {
		numbers = append(numbers, last[id])
	}
	if _, err := t.pool.Exec(ctx, updateSQL, ids, numbers); err != nil {
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	t.sendJSON(w, rows)
}

// CachedQueries answers CachedWorld rows through the LRU cache: a miss reads the row once.
func (t *TechEmpower) CachedQueries(w http.ResponseWriter, r *http.Request) {
	ctx, cancel, ok := t.database(w, r)
	if !ok {
		return
	}
	defer cancel()
	rows := make([]World, count(r, "count"))
	for i := range rows {
		id := randomID()
		row, hit := t.cache.Get(id)
		if !hit {
			if err := t.pool.QueryRow(ctx, cachedSQL, id).Scan(&row.ID, &row.RandomNumber); err != nil {
				http.Error(w, "database unavailable", http.StatusServiceUnavailable)
				return
			}
			t.cache.Add(id, row)
		}
		rows[i] = row
	}
	t.sendJSON(w, rows)
}
