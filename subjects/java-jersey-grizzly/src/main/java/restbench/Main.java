package restbench;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import jakarta.ws.rs.ext.ContextResolver;
import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.HttpHandlerRegistration;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.RequestExecutorProvider;
import org.glassfish.grizzly.http.server.Response;
import org.glassfish.grizzly.http.server.NetworkListener;
import org.glassfish.grizzly.http.server.StaticHttpHandler;
import org.glassfish.grizzly.http.util.MimeType;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.strategies.SameThreadIOStrategy;
import org.glassfish.grizzly.strategies.WorkerThreadIOStrategy;
import org.glassfish.grizzly.threadpool.ThreadPoolConfig;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.glassfish.jersey.jackson.JacksonFeature;
import org.glassfish.jersey.message.GZipEncoder;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;
import org.glassfish.jersey.server.filter.EncodingFilter;

import java.net.URI;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Jersey on Grizzly (seed 002's stack). Settings from the environment:
 * GRIZZLY_IO_STRATEGY = same-thread (seed 002 after commit fad8f93, the default here) | worker-thread;
 * GRIZZLY_THREADS = selector and worker threads (unset: Grizzly's defaults, from the CPU count);
 * GRIZZLY_HANDLER = worker-thread (Grizzly's default and seed 002's: a request read on a selector
 * thread is handed to the transport's worker pool, HttpHandler's WorkerThreadProvider) | same-thread
 * (Jersey runs on the selector thread that read the request, Grizzly's SameThreadProvider, as
 * TechEmpower's grizzly entry does by returning no thread pool).
 */
public final class Main {
    /** When the server started: the createdAt of every todo item. */
    static final Instant STARTED = Instant.now().truncatedTo(ChronoUnit.MILLIS);

    /** Jackson for JacksonFeature: java.time as ISO 8601 strings. */
    public static final class Mapper implements ContextResolver<ObjectMapper> {
        private final ObjectMapper mapper = new ObjectMapper()
                .registerModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

        @Override
        public ObjectMapper getContext(Class<?> type) {
            return mapper;
        }
    }

    /**
     * Jersey's container with Grizzly's SameThreadProvider: GrizzlyHttpContainer is final and
     * takes Grizzly's default provider, so the choice is made by the handler around it.
     */
    static final class OnTheSelector extends HttpHandler {
        private final HttpHandler container;
        private final RequestExecutorProvider same = new RequestExecutorProvider.SameThreadProvider();

        OnTheSelector(HttpHandler container) {
            this.container = container;
        }

        @Override
        public void service(Request request, Response response) throws Exception {
            container.service(request, response);
        }

        @Override
        public RequestExecutorProvider getRequestExecutorProvider() {
            return same;
        }

        @Override
        public void start() {
            container.start();
        }

        @Override
        public void destroy() {
            container.destroy();
        }
    }

    public static void main(String[] args) throws Exception {
        // quiet: no Grizzly/Jersey INFO lines, no request logging
        Logger root = Logger.getLogger("");
        root.setLevel(Level.WARNING);
        for (var h : root.getHandlers()) {
            h.setLevel(Level.WARNING);
        }
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");

        String host = System.getenv().getOrDefault("HOST", "127.0.0.1");
        int port = Integer.parseInt(System.getenv().getOrDefault("PORT", "8080"));
        String strategy = System.getenv().getOrDefault("GRIZZLY_IO_STRATEGY", "same-thread");
        String threadsEnv = System.getenv("GRIZZLY_THREADS");
        String handler = System.getenv().getOrDefault("GRIZZLY_HANDLER", "worker-thread");
        if (!handler.equals("worker-thread") && !handler.equals("same-thread")) {
            throw new IllegalArgumentException("GRIZZLY_HANDLER must be worker-thread or same-thread");
        }

        Database db = Database.INSTANCE;

        ResourceConfig rc = new ResourceConfig()
                .register(JacksonFeature.class)
                .register(Mapper.class)
                .register(BodyLimit.class)
                .register(ResponseHeaders.class)
                .register(Resources.Plaintext.class)
                .register(Resources.Todo.class)
                .register(Resources.Echo.class)
                .register(Resources.Users.class)
                .register(Resources.Delay.class)
                .register(Resources.Upload.class)
                .register(Resources.Download.class)
                // TechEmpower's six test types
                .register(Tfb.ServerHeader.class)
                .register(Tfb.Unavailable.class)
                .register(Tfb.FortunesWriter.class)
                .register(Tfb.Json.class)
                .register(Tfb.Db.class)
                .register(Tfb.Queries.class)
                .register(Tfb.Fortunes.class)
                .register(Tfb.Updates.class)
                .register(Tfb.CachedQueries.class)
                .property(ServerProperties.WADL_FEATURE_DISABLE, true)
                .property(ServerProperties.BV_FEATURE_DISABLE, true)
                .property(ServerProperties.MONITORING_STATISTICS_ENABLED, false);
        // json-gzip: Jersey's EncodingFilter picks gzip from Accept-Encoding per request (identity
        // when there is none), GZipEncoder compresses the entity as it is written, and the filter
        // adds Vary: Accept-Encoding. It has no minimum size, so todo's ~500 bytes are compressed.
        EncodingFilter.enableFor(rc, GZipEncoder.class);

        HttpServer server = GrizzlyHttpServerFactory.createHttpServer(
                URI.create("http://" + host + ":" + port + "/"), rc, false);
        server.getServerConfiguration().setJmxEnabled(false);
        server.getServerConfiguration().setSendFileEnabled(false);
        if (handler.equals("same-thread")) {
            var config = server.getServerConfiguration();
            HttpHandler jersey = config.getHttpHandlers().keySet().iterator().next();
            config.removeHttpHandler(jersey);
            config.addHttpHandler(new OnTheSelector(jersey), "/");
        }
        // static: Grizzly's StaticHttpHandler beside Jersey, at /static/ (the rest of the paths stay
        // Jersey's). Its first answer for a file reads it from disk and sets ETag and Last-Modified;
        // it then enters the listener's FileCache (on by default), which memory-maps the file (the
        // OS page cache) and answers If-None-Match / If-Modified-Since with 304. A URI with ".." is
        // refused (404). Without STATIC_DIR there is no such handler and /static/ is Jersey's 404.
        String staticDir = System.getenv("STATIC_DIR");
        if (staticDir != null && !staticDir.isBlank()) {
            MimeType.add("json", "application/json"); // Grizzly's table has no .json (text/plain)
            server.getServerConfiguration().addHttpHandler(new StaticHttpHandler(staticDir),
                    HttpHandlerRegistration.builder().contextPath("/static").urlPattern("/").build());
        }
        NetworkListener listener = server.getListeners().iterator().next();
        listener.setMaxHttpHeaderSize(16 * 1024);          // header size limit
        listener.getKeepAlive().setIdleTimeoutInSeconds(30); // idle / slow-header connections closed
        server.getServerConfiguration().setMaxPostSize(BodyLimit.LIMIT);

        TCPNIOTransport transport = listener.getTransport();
        if (strategy.equals("worker-thread")) {
            transport.setIOStrategy(WorkerThreadIOStrategy.getInstance());
        } else if (strategy.equals("same-thread")) {
            transport.setIOStrategy(SameThreadIOStrategy.getInstance());
        } else {
            throw new IllegalArgumentException("GRIZZLY_IO_STRATEGY must be same-thread or worker-thread");
        }
        if (threadsEnv != null && !threadsEnv.isBlank()) {
            int n = Integer.parseInt(threadsEnv.trim());
            transport.setSelectorRunnersCount(n);
            ThreadPoolConfig workers = ThreadPoolConfig.defaultConfig().copy()
                    .setPoolName("grizzly-worker").setCorePoolSize(n).setMaxPoolSize(n);
            transport.setWorkerThreadPoolConfig(workers);
        }

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.shutdownNow();
            db.pool.close();
            stopped.countDown();
        }, "shutdown"));

        server.start();
        System.err.println("java-jersey-grizzly listening on " + host + ":" + port + " (io strategy "
                + strategy + ", handler on the " + handler + ", selectors " + transport.getSelectorRunnersCount() + ", cpus "
                + Runtime.getRuntime().availableProcessors() + ")");
        stopped.await();
        TimeUnit.MILLISECONDS.sleep(10);
    }
}
