package restbench;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.networknt.encode.ResponseEncodeHandler;
import com.networknt.handler.HandlerProvider;
import com.networknt.resource.PathResourceHandler;
import io.undertow.Handlers;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.RequestTooBigException;
import io.undertow.util.Headers;
import io.undertow.util.PathTemplateMatch;
import io.undertow.util.SameThreadExecutor;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

/**
 * The Light-4J route handler (registered in config/service.yml). Seed 004's Light-4J text handler
 * sent a pre-allocated direct ByteBuffer; the JSON routes serialize with Jackson on every request.
 */
public final class PathHandlerProvider implements HandlerProvider {
    static final long BODY_LIMIT = 1024 * 1024;
    static final String JSON = "application/json";
    static final String TEXT = "text/plain";
    static final int DELAY_MAX_MS = 10_000;
    static final int DOWNLOAD_MAX = 10 * 1024 * 1024;

    /** Set in Main before the server starts. */
    static volatile Instant started = Instant.now();
    static volatile Database db;

    private static final ByteBuffer HELLO;
    static {
        byte[] b = "Hello, World!".getBytes(StandardCharsets.US_ASCII);
        HELLO = ByteBuffer.allocateDirect(b.length).put(b).flip();
    }

    /** What /download/{n} sends a slice of: byte i is i mod 256. */
    private static final ByteBuffer PATTERN;
    static {
        ByteBuffer p = ByteBuffer.allocateDirect(DOWNLOAD_MAX);
        for (int i = 0; i < DOWNLOAD_MAX; i++) {
            p.put((byte) i);
        }
        PATTERN = p.flip();
    }

    private final ObjectMapper mapper = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final List<Model.TodoItem> todos;

    public PathHandlerProvider() {
        String[] titles = {"Do some stuff", "Do more stuff", "Even more stuff", "Yihaa",
                "Java is great! Or isn't it?", "Foo Bar", "Lorem ipsum", "Dolor sit amet"};
        List<Model.TodoItem> list = new ArrayList<>(titles.length);
        for (String t : titles) {
            list.add(new Model.TodoItem(t, started));
        }
        todos = List.copyOf(list);
    }

    /**
     * The routes: the seeds' four, delay, static, upload, download, then TechEmpower's six at TFB's
     * paths ({@link Tfb}); those that read the database are dispatched to Undertow's worker pool.
     */
    @Override
    public HttpHandler getHandler() {
        Tfb tfb = tfb();
        var routes = Handlers.routing()
                .get("/api/test", this::plaintext)
                .get("/rest/todo", compressed(this::todo))
                .post("/echo", this::echo)
                .get("/users", this::users)
                .get("/delay/{ms}", this::delay)
                .post("/upload", this::upload)
                .get("/download/{n}", this::download)
                .get("/json", tfb::json)
                .get("/db", Tfb.blocking(tfb::db))
                .get("/queries", Tfb.blocking(tfb::queries))
                .get("/fortunes", Tfb.blocking(tfb::fortunes))
                .get("/updates", Tfb.blocking(tfb::updates))
                .get("/cached-queries", Tfb.blocking(tfb::cachedQueries))
                .setFallbackHandler(ex -> text(ex, 404, "Not Found"))
                .setInvalidMethodHandler(ex -> text(ex, 405, "Method Not Allowed"));
        HttpHandler files = staticFiles();
        if (files != null) {
            routes.get("/static/*", files);
        }
        return routes;
    }

    /**
     * static: Light-4J's resource module, PathResourceHandler (config/path-resource.yml: prefix
     * /static, base STATIC_DIR), which is Undertow's ResourceHandler over a PathResourceManager:
     * each answer read from disk, Last-Modified from the file's mtime, 304 for If-Modified-Since,
     * ".." segments canonicalized away. PathResourceManager refuses a base that does not exist, so
     * without STATIC_DIR (or with a missing one) there is no such route and /static/ is a 404.
     */
    private static HttpHandler staticFiles() {
        String dir = System.getenv("STATIC_DIR");
        if (dir == null || dir.isBlank() || !Files.isDirectory(Path.of(dir))) {
            System.err.println("java-light4j: STATIC_DIR is not a folder; /static/ answers 404");
            return null;
        }
        return new PathResourceHandler();
    }

    /**
     * json-gzip: Light-4J's encode-decode module, ResponseEncodeHandler (config/response-encode.yml:
     * gzip), which gives the exchange Undertow's gzip conduit when Accept-Encoding takes gzip (no
     * minimum size: every answer it wraps is compressed, per request). Undertow adds no Vary, so
     * it is set here, on the one route wrapped.
     */
    private static HttpHandler compressed(HttpHandler next) {
        HttpHandler encode = new ResponseEncodeHandler().setNext(next);
        return ex -> {
            ex.getResponseHeaders().add(Headers.VARY, "Accept-Encoding");
            encode.handleRequest(ex);
        };
    }

    /** TechEmpower's handlers over the pool, their cache filled from CachedWorld now (if it can be). */
    private Tfb tfb() {
        Tfb tfb = new Tfb(db, mapper);
        if (!tfb.fillCache()) {
            System.err.println("java-light4j: CachedWorld not read at start-up; the cache loads rows on demand");
        }
        return tfb;
    }

    private void plaintext(HttpServerExchange ex) {
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, TEXT);
        ex.getResponseSender().send(HELLO.duplicate());
    }

    private void todo(HttpServerExchange ex) throws IOException {
        json(ex, mapper.writeValueAsBytes(todos));
    }

    /**
     * Reads the body without blocking (Undertow's receiver, on the IO thread), then parses it into
     * the typed classes and serializes it again. A declared Content-Length over 1 MiB is refused up
     * front; a chunked body is counted and refused once it passes 1 MiB.
     */
    private void echo(HttpServerExchange ex) {
        long declared = ex.getRequestContentLength();
        if (declared > BODY_LIMIT) {
            tooLarge(ex);
            return;
        }
        // Undertow would cut the connection at MAX_ENTITY_SIZE; leave room so that the count below
        // answers 413 first.
        ex.setMaxEntitySize(BODY_LIMIT + 64 * 1024);
        if (declared >= 0) {
            ex.getRequestReceiver().receiveFullBytes((e, bytes) -> echoParsed(e, bytes), this::readError);
            return;
        }
        ByteArrayOutputStream buf = new ByteArrayOutputStream(8192);
        ex.getRequestReceiver().receivePartialBytes((e, chunk, last) -> {
            if (buf.size() + chunk.length > BODY_LIMIT) {
                e.getRequestReceiver().pause();
                tooLarge(e);
                return;
            }
            buf.write(chunk, 0, chunk.length);
            if (last) {
                echoParsed(e, buf.toByteArray());
            }
        }, this::readError);
    }

    /**
     * The body's length and CRC-32 from the bytes Undertow's receiver reads, chunk by chunk on the
     * IO thread without blocking; the limits as in echo.
     */
    private void upload(HttpServerExchange ex) {
        long declared = ex.getRequestContentLength();
        if (declared > BODY_LIMIT) {
            tooLarge(ex);
            return;
        }
        ex.setMaxEntitySize(BODY_LIMIT + 64 * 1024);
        CRC32 crc = new CRC32();
        long[] read = {0};
        ex.getRequestReceiver().receivePartialBytes((e, chunk, last) -> {
            read[0] += chunk.length;
            if (read[0] > BODY_LIMIT) {
                e.getRequestReceiver().pause();
                tooLarge(e);
                return;
            }
            crc.update(chunk);
            if (last) {
                text(e, 200, read[0] + " " + String.format("%08x", crc.getValue()));
            }
        }, this::readError);
    }

    /**
     * n bytes sliced from the buffer made at start-up (the sender sets Content-Length). Not digits
     * → 404, over 10 MiB → 400.
     */
    private void download(HttpServerExchange ex) {
        String n = ex.getAttachment(PathTemplateMatch.ATTACHMENT_KEY).getParameters().get("n");
        if (n == null || n.isEmpty() || !n.chars().allMatch(c -> c >= '0' && c <= '9')) {
            text(ex, 404, "Not Found");
            return;
        }
        long size = n.length() > 8 ? DOWNLOAD_MAX + 1L : Long.parseLong(n);
        if (size > DOWNLOAD_MAX) {
            text(ex, 400, "Bad Request");
            return;
        }
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/octet-stream");
        ex.getResponseSender().send(PATTERN.duplicate().limit((int) size));
    }

    private void echoParsed(HttpServerExchange e, byte[] bytes) {
        Model.Body body;
        try {
            body = mapper.readValue(bytes, Model.Body.class);
        } catch (IOException err) {
            text(e, 400, "Bad Request");
            return;
        }
        try {
            json(e, mapper.writeValueAsBytes(body));
        } catch (IOException err) {
            text(e, 500, "Internal Server Error");
        }
    }

    private void readError(HttpServerExchange e, IOException err) {
        if (err instanceof RequestTooBigException || err.getCause() instanceof RequestTooBigException) {
            tooLarge(e);
        } else {
            e.setPersistent(false);
            text(e, 400, "Bad Request");
        }
    }

    private static void tooLarge(HttpServerExchange e) {
        e.setPersistent(false);
        text(e, 413, "Payload Too Large");
    }

    /**
     * The answer after {ms} milliseconds from a timer of the connection's own IO thread (XNIO's
     * executeAfter), so that no thread waits; the dispatch on the same thread keeps the exchange
     * open when the handler returns. Not digits → 404, over 10,000 → 400, both at once.
     */
    private void delay(HttpServerExchange ex) {
        String ms = ex.getAttachment(PathTemplateMatch.ATTACHMENT_KEY).getParameters().get("ms");
        if (ms == null || ms.isEmpty() || !ms.chars().allMatch(c -> c >= '0' && c <= '9')) {
            text(ex, 404, "Not Found");
            return;
        }
        int wait = ms.length() > 5 ? DELAY_MAX_MS + 1 : Integer.parseInt(ms);
        if (wait > DELAY_MAX_MS) {
            text(ex, 400, "Bad Request");
            return;
        }
        String body = Integer.toString(wait);
        ex.dispatch(SameThreadExecutor.INSTANCE, () ->
                ex.getIoThread().executeAfter(() -> text(ex, 200, body), wait, TimeUnit.MILLISECONDS));
    }

    /** JDBC blocks: run on Undertow's worker pool, not the IO thread. */
    private void users(HttpServerExchange ex) throws IOException {
        if (ex.isInIoThread()) {
            ex.dispatch(this::users);
            return;
        }
        List<Model.User> users;
        try {
            users = db.users();
        } catch (SQLException e) {
            text(ex, 503, "database unavailable");
            return;
        }
        json(ex, mapper.writeValueAsBytes(users));
    }

    private static void json(HttpServerExchange ex, byte[] body) {
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, JSON);
        ex.getResponseSender().send(ByteBuffer.wrap(body));
    }

    static void text(HttpServerExchange ex, int status, String msg) {
        ex.setStatusCode(status);
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, TEXT);
        if (!ex.isPersistent()) {
            ex.getResponseHeaders().put(Headers.CONNECTION, "close");
        }
        ex.getResponseSender().send(msg);
    }

}
