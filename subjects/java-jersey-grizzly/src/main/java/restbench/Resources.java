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
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.glassfish.jersey.server.BackgroundScheduler;

import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** The JAX-RS resources of the seeds' four workloads and delay (singletons, registered in Main). */
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
}
