package restbench;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Request bodies over 1 MiB → 413: a declared Content-Length is checked before matching; a body
 * without one (chunked) is counted while it is read and aborted past the limit. A compressed
 * request body (Content-Encoding) → 415: GZipEncoder, registered for the answers, would inflate
 * it past any limit counted here.
 */
@PreMatching
public final class BodyLimit implements ContainerRequestFilter {
    static final long LIMIT = 1024 * 1024;

    static Response tooLarge() {
        return Response.status(Response.Status.REQUEST_ENTITY_TOO_LARGE)
                .type(MediaType.TEXT_PLAIN_TYPE).header("Connection", "close")
                .entity("payload too large").build();
    }

    @Override
    public void filter(ContainerRequestContext ctx) {
        String encoding = ctx.getHeaderString("Content-Encoding");
        if (encoding != null && !encoding.isBlank() && !encoding.trim().equalsIgnoreCase("identity")) {
            ctx.abortWith(Response.status(Response.Status.UNSUPPORTED_MEDIA_TYPE)
                    .type(MediaType.TEXT_PLAIN_TYPE).entity("compressed request bodies are not accepted").build());
            return;
        }
        String cl = ctx.getHeaderString("Content-Length");
        if (cl != null) {
            long len;
            try {
                len = Long.parseLong(cl.trim());
            } catch (NumberFormatException e) {
                ctx.abortWith(Response.status(Response.Status.BAD_REQUEST).build());
                return;
            }
            if (len > LIMIT) {
                ctx.abortWith(tooLarge());
            }
        } else if (ctx.hasEntity()) {
            ctx.setEntityStream(new Counting(ctx.getEntityStream()));
        }
    }

    private static final class Counting extends FilterInputStream {
        private long n;

        Counting(InputStream in) {
            super(in);
        }

        private void count(long k) {
            if (k > 0 && (n += k) > LIMIT) {
                throw new WebApplicationException(tooLarge());
            }
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int k = super.read(b, off, len);
            count(k);
            return k;
        }
    }
}
