package restbench;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.MediaType;
import org.glassfish.grizzly.http.util.FastHttpDateFormat;

/**
 * Grizzly sends no Date header of its own: add one (Grizzly's cached per-second formatter).
 * Jersey's own error responses (404, 405, 415, ...) have no body: give them a short text one, so
 * that every response has a Content-Type.
 */
public final class ResponseHeaders implements ContainerResponseFilter {
    @Override
    public void filter(ContainerRequestContext req, ContainerResponseContext res) {
        res.getHeaders().putSingle("Date", FastHttpDateFormat.getCurrentDate());
        if (!res.hasEntity() && res.getStatus() >= 400) {
            String reason = res.getStatusInfo().getReasonPhrase();
            res.setEntity(reason == null ? String.valueOf(res.getStatus()) : reason, null,
                    MediaType.TEXT_PLAIN_TYPE);
        }
    }
}
