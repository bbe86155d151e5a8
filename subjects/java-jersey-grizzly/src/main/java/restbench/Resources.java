package restbench;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.glassfish.jersey.server.BackgroundScheduler;

import java.io.IOException;
import java.io.InputStream;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

/**
 * The JAX-RS resources of the seeds' four workloads, delay, upload and download (singletons,
 * registered in Main).
 */
public final class Resources {
    private Resources() {}

    @Path("/api/test")
    @Singleton
    public static final class Plaintext {
        @GET
        @Produces(MediaType.TEXT_PLAIN)
        public String get() {
            return "Hello, World!";
        }
    }

    /** Seed 002's TodoResource: Jersey @Path under /rest, serialized by JacksonFeature. */
    @Path("/rest/todo")
    @Singleton
    public static final class Todo {
        private final List<Model.TodoItem> todos;

        public Todo() {
            Instant now = Main.STARTED;
            String[] titles = {"Do some stuff", "Do more stuff", "Even more stuff", "Yihaa",
                    "Java is great! Or isn't it?", "Foo Bar", "Lorem ipsum", "Dolor sit amet"};
            List<Model.TodoItem> list = new ArrayList<>(titles.length);
            for (String t : titles) {
                list.add(new Model.TodoItem(t, now));
            }
            todos = List.copyOf(list);
        }

        @GET
        @Produces(MediaType.APPLICATION_JSON)
        public List<Model.TodoItem> get() {
            return todos;
        }
    }

    @Path("/echo")
    @Singleton
    public static final class Echo {
        @POST
        @Consumes(MediaType.APPLICATION_JSON)
        @Produces(MediaType.APPLICATION_JSON)
        public Model.Body post(Model.Body body) {
            return body;
        }
    }

    @Path("/users")
    @Singleton
    public static final class Users {
        private final Database db = Database.INSTANCE;

        @GET
        @Produces(MediaType.APPLICATION_JSON)
        public Response get() {
            try {
                return Response.ok(db.users(), MediaType.APPLICATION_JSON_TYPE).build();
            } catch (SQLException e) {
                return Response.status(Response.Status.SERVICE_UNAVAILABLE)
                        .type(MediaType.TEXT_PLAIN_TYPE).entity("database unavailable").build();
            }
        }
    }

    /**
     * The answer after {ms} milliseconds: the request is suspended (JAX-RS AsyncResponse) and
     * resumed by Jersey's own scheduler (@BackgroundScheduler), so that no Grizzly thread waits.
     * Not digits → no resource matches (404); over 10,000 → 400 at once.
     */
    @Path("/delay/{ms: [0-9]+}")
    @Singleton
    public static final class Delay {
        static final int MAX_MS = 10_000;

        @Inject
        @BackgroundScheduler
        private ScheduledExecutorService scheduler;

        @GET
        @Produces(MediaType.TEXT_PLAIN)
        public void get(@PathParam("ms") String ms, @Suspended AsyncResponse response) {
            int wait = ms.length() > 5 ? MAX_MS + 1 : Integer.parseInt(ms);
            if (wait > MAX_MS) {
                response.resume(Response.status(Response.Status.BAD_REQUEST)
                        .type(MediaType.TEXT_PLAIN_TYPE).entity("delay over " + MAX_MS + " ms").build());
                return;
            }
            String body = Integer.toString(wait);
            scheduler.schedule(() -> response.resume(body), wait, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * The body's length and CRC-32, both from the bytes read from the entity stream that JAX-RS
     * hands an InputStream parameter (BodyLimit has refused a Content-Length over 1 MiB and counts
     * a chunked body while it is read).
     */
    @Path("/upload")
    @Singleton
    public static final class Upload {
        @POST
        @Produces(MediaType.TEXT_PLAIN)
        public String post(InputStream body) throws IOException {
            CRC32 crc = new CRC32();
            byte[] buf = new byte[16 * 1024];
            long n = 0;
            for (int k; (k = body.read(buf)) != -1; ) {
                crc.update(buf, 0, k);
                n += k;
            }
            return n + " " + String.format("%08x", crc.getValue());
        }
    }

    /**
     * n bytes where byte i is i mod 256, sliced from one buffer made at start-up and written by a
     * StreamingOutput; the Content-Length is declared, since Jersey would otherwise chunk what
     * outgrows its 8 KiB buffer. Not digits → no resource matches (404); over 10 MiB → 400.
     */
    @Path("/download/{n: [0-9]+}")
    @Singleton
    public static final class Download {
        static final int MAX = 10 * 1024 * 1024;
        private static final byte[] PATTERN = new byte[MAX];

        static {
            for (int i = 0; i < MAX; i++) {
                PATTERN[i] = (byte) i;
            }
        }

        @GET
        @Produces(MediaType.APPLICATION_OCTET_STREAM)
        public Response get(@PathParam("n") String n) {
            long len = n.length() > 8 ? MAX + 1L : Long.parseLong(n);
            if (len > MAX) {
                return Response.status(Response.Status.BAD_REQUEST)
                        .type(MediaType.TEXT_PLAIN_TYPE).entity("download over " + MAX + " bytes").build();
            }
            int size = (int) len;
            StreamingOutput bytes = out -> out.write(PATTERN, 0, size);
            return Response.ok(bytes, MediaType.APPLICATION_OCTET_STREAM_TYPE)
                    .header("Content-Length", size).build();
        }
    }
}
