package restbench;

import com.networknt.server.Server;
import com.networknt.server.ServerAccess;
import io.undertow.Undertow;
import io.undertow.UndertowOptions;
import io.undertow.server.OpenListener;
import org.xnio.OptionMap;

import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Starts the Light-4J server (com.networknt.server.Server, configured by config/server.yml and
 * config/service.yml in the jar; HOST, PORT, UNDERTOW_IO_THREADS, UNDERTOW_WORKER_THREADS are
 * injected from the environment), then adds the hardening options that Light-4J's server.yml does
 * not expose: header size limit and header-read / idle timeouts.
 */
public final class Main {
    static final int MAX_HEADER_SIZE = 16 * 1024;

    public static void main(String[] args) throws Exception {
        PathHandlerProvider.started = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        PathHandlerProvider.db = new Database();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> PathHandlerProvider.db.pool.close(), "db-close"));

        // Light-4J prints several status lines to stdout while it starts: keep them out.
        PrintStream out = System.out;
        System.setOut(new PrintStream(OutputStream.nullOutputStream()));
        try {
            Server.start();
        } finally {
            System.setOut(out);
        }
        Undertow undertow = ServerAccess.undertow();
        if (undertow == null) {
            System.err.println("java-light4j: the server did not start");
            System.exit(1);
        }
        Field f = Undertow.ListenerInfo.class.getDeclaredField("openListener");
        f.setAccessible(true);
        for (Undertow.ListenerInfo li : undertow.getListenerInfo()) {
            OptionMap current = ((OpenListener) f.get(li)).getUndertowOptions();
            li.setServerOptions(OptionMap.builder().addAll(current)
                    .set(UndertowOptions.MAX_HEADER_SIZE, MAX_HEADER_SIZE)
                    .set(UndertowOptions.REQUEST_PARSE_TIMEOUT, 10_000)
                    .set(UndertowOptions.NO_REQUEST_TIMEOUT, 60_000)
                    .getMap());
        }
        var cfg = Server.getServerConfig();
        System.err.println("java-light4j listening on " + cfg.getIp() + ":" + cfg.getHttpPort()
                + " (io threads " + cfg.getIoThreads() + ", worker threads " + cfg.getWorkerThreads()
                + ", cpus " + Runtime.getRuntime().availableProcessors() + ")");
    }
}
