// TechEmpower's six test types over the same pgxpool as /users: json, db, queries, fortunes,
// updates and cached-queries, each answered with a Server header (TechEmpower requires one;
// fasthttp adds Date). Every World row is its own query, which pgx prepares once per
// connection and reuses (its default QueryExecModeCacheStatement); JSON is easyjson's generated
// marshalers (package model); the fortunes page is html/template, whose contextual
// auto-escaping escapes the <script> row; cached-queries read through hashicorp/golang-lru,
// filled from CachedWorld on a miss.
package main

import (
	"context"
	_ "embed"
	"html/template"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mailru/easyjson"
	"github.com/valyala/fasthttp"

	"restbench/subjects/go-fasthttp/model"
)

const (
	worldSQL    = "SELECT id, randomNumber FROM World WHERE id = $1"
	fortunesSQL = "SELECT id, message FROM Fortune"
	cachedSQL   = "SELECT id, randomNumber FROM CachedWorld WHERE id = $1"
	// One statement for all the rows of a request (TechEmpower allows batched updates, not reads).
	updateSQL = "UPDATE World SET randomNumber = v.r " +
		"FROM (SELECT * FROM UNNEST($1::int4[], $2::int4[]) AS t(id, r)) AS v WHERE World.id = v.id"
	serverName = "fasthttp"
)

type Fortune struct {
	ID      int32
	Message string
}

//go:embed templates/fortunes.html
var fortunesHTML string

var fortunesPage = template.Must(template.New("fortunes").Parse(fortunesHTML))

// TechEmpower serves the six types: the pool, and the cache of CachedWorld rows.
type TechEmpower struct {
	pool  *pgxpool.Pool
	cache *lru.Cache[int32, model.World]
}

func newTechEmpower(pool *pgxpool.Pool) *TechEmpower {
	cache, err := lru.New[int32, model.World](10_000) // CachedWorld has 10,000 rows: all of them fit
	if err != nil {
		panic(err) // only for a size <= 0
	}
	return &TechEmpower{pool: pool, cache: cache}
}

// count is `name` of the query string clamped to 1..500; missing or not a number is 1.
func count(ctx *fasthttp.RequestCtx, name string) int {
	n, err := ctx.QueryArgs().GetUint(name)
	if err != nil || n < 1 {
		return 1
	}
	return min(n, 500)
}

// randomID is an id or a number in 1..10,000 (math/rand/v2's generator is safe across goroutines).
func randomID() int32 { return rand.Int32N(10_000) + 1 }

func sendJSON(ctx *fasthttp.RequestCtx, v easyjson.Marshaler) {
	ctx.Response.Header.Set("Server", serverName)
	writeJSON(ctx, v)
}

// database bounds acquire + connect + queries (500 rows take more than /users's 2 s may
// allow under load; each statement still has the 2 s statement_timeout); nil without a database.
func (t *TechEmpower) database(ctx *fasthttp.RequestCtx) (context.Context, context.CancelFunc) {
	if t.pool == nil {
		ctx.Error("database not configured", fasthttp.StatusServiceUnavailable)
		return nil, nil
	}
	return context.WithTimeout(context.Background(), 5*time.Second)
}

// worlds reads n random World rows on one connection, each its own query.
func (t *TechEmpower) worlds(dbctx context.Context, n int) (model.Worlds, error) {
	conn, err := t.pool.Acquire(dbctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	rows := make(model.Worlds, n)
	for i := range rows {
		if err := conn.QueryRow(dbctx, worldSQL, randomID()).Scan(&rows[i].ID, &rows[i].RandomNumber); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// Json answers {"message":"Hello, World!"} from an object serialized now.
func (t *TechEmpower) Json(ctx *fasthttp.RequestCtx) {
	sendJSON(ctx, model.Message{Message: "Hello, World!"})
}

func (t *TechEmpower) Db(ctx *fasthttp.RequestCtx) {
	dbctx, cancel := t.database(ctx)
	if dbctx == nil {
		return
	}
	defer cancel()
	rows, err := t.worlds(dbctx, 1)
	if err != nil {
		ctx.Error("database unavailable", fasthttp.StatusServiceUnavailable)
		return
	}
	sendJSON(ctx, rows[0])
}

func (t *TechEmpower) Queries(ctx *fasthttp.RequestCtx) {
	dbctx, cancel := t.database(ctx)
	if dbctx == nil {
		return
	}
	defer cancel()
	rows, err := t.worlds(dbctx, count(ctx, "queries"))
	if err != nil {
		ctx.Error("database unavailable", fasthttp.StatusServiceUnavailable)
		return
	}
	sendJSON(ctx, rows)
}

// Fortunes answers every fortune and one added, sorted by message here, rendered by html/template.
func (t *TechEmpower) Fortunes(ctx *fasthttp.RequestCtx) {
	dbctx, cancel := t.database(ctx)
	if dbctx == nil {
		return
	}
	defer cancel()
	rows, err := t.pool.Query(dbctx, fortunesSQL)
	if err != nil {
		ctx.Error("database unavailable", fasthttp.StatusServiceUnavailable)
		return
	}
	fortunes, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Fortune, error) {
		var f Fortune
		err := row.Scan(&f.ID, &f.Message)
		return f, err
	})
	if err != nil {
		ctx.Error("database unavailable", fasthttp.StatusServiceUnavailable)
		return
	}
	fortunes = append(fortunes, Fortune{ID: 0, Message: "Additional fortune added at request time."})
	slices.SortFunc(fortunes, func(a, b Fortune) int { return strings.Compare(a.Message, b.Message) })
	ctx.Response.Header.Set("Server", serverName)
	ctx.SetContentType("text/html; charset=utf-8")
	if err := fortunesPage.Execute(ctx, fortunes); err != nil {
		ctx.Error("internal error", fasthttp.StatusInternalServerError)
	}
}

// Updates reads n rows one query each, gives each a new number and writes them in one
// statement before the answer (an id drawn twice keeps its last number, the one answered last).
func (t *TechEmpower) Updates(ctx *fasthttp.RequestCtx) {
	dbctx, cancel := t.database(ctx)
	if dbctx == nil {
		return
	}
	defer cancel()
	rows, err := t.worlds(dbctx, count(ctx, "queries"))
	if err != nil {
		ctx.Error("database unavailable", fasthttp.StatusServiceUnavailable)
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
	if _, err := t.pool.Exec(dbctx, updateSQL, ids, numbers); err != nil {
		ctx.Error("database unavailable", fasthttp.StatusServiceUnavailable)
		return
	}
	sendJSON(ctx, rows)
}

// CachedQueries answers CachedWorld rows through the LRU cache: a miss reads the row once.
func (t *TechEmpower) CachedQueries(ctx *fasthttp.RequestCtx) {
	dbctx, cancel := t.database(ctx)
	if dbctx == nil {
		return
	}
	defer cancel()
	rows := make(model.Worlds, count(ctx, "count"))
	for i := range rows {
		id := randomID()
		row, hit := t.cache.Get(id)
		if !hit {
			if err := t.pool.QueryRow(dbctx, cachedSQL, id).Scan(&row.ID, &row.RandomNumber); err != nil {
				ctx.Error("database unavailable", fasthttp.StatusServiceUnavailable)
				return
			}
			t.cache.Add(id, row)
		}
		rows[i] = row
	}
	sendJSON(ctx, rows)
}
