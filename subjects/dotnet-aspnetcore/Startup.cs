using System;
using System.IO;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.AspNetCore.ResponseCompression;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.FileProviders;
using Newtonsoft.Json;

namespace DotNetCoreRestService
{
    public class Startup
    {
        /// The contract's body limit: 1 MiB.
        public const long MaxBody = 1024 * 1024;

        public void ConfigureServices(IServiceCollection services)
        {
            services.AddMvc()
                .SetCompatibilityVersion(CompatibilityVersion.Version_2_2)
                // Without a generated deps.json MVC does not find the entry assembly's controllers.
                .AddApplicationPart(typeof(Startup).Assembly)
                .AddJsonOptions(o =>
                {
                    // White has no "type": left out rather than written as null.
                    o.SerializerSettings.NullValueHandling = NullValueHandling.Ignore;
                    o.SerializerSettings.DateFormatString = "yyyy'-'MM'-'dd'T'HH':'mm':'ss.fff'Z'";
                });
            // json-gzip: the response compression middleware, compressing per request when
            // Accept-Encoding asks (it adds Vary: Accept-Encoding). The providers are 2.2's own
            // default pair in its default order, Brotli before gzip, so `gzip, br` gets br and
            // `gzip` gets gzip; both at CompressionLevel.Fastest, their default. Its default MIME
            // types include application/json, and 2.2 has no minimum size (the ~500-byte todo
            // document is compressed as it is).
            services.AddResponseCompression(o =>
            {
                o.Providers.Add<BrotliCompressionProvider>();
                o.Providers.Add<GzipCompressionProvider>();
            });
        }

        public void Configure(IApplicationBuilder app, IHostingEnvironment env)
        {
            // 413 up front when Content-Length says the body is too large (Kestrel's own limit
            // covers chunked bodies, as a read error).
            app.Use(async (context, next) =>
            {
                if (context.Request.ContentLength > MaxBody)
                {
                    context.Response.StatusCode = StatusCodes.Status413PayloadTooLarge;
                    return;
                }
                await next();
            });
            // Before everything that writes a body, so that it wraps them (no Accept-Encoding: it
            // passes the answer through untouched).
            app.UseResponseCompression();
            // static: the static file middleware on STATIC_DIR under /static. It stats the file per
            // request and sends it from disk, with Content-Type from FileExtensionContentTypeProvider's
            // default map, ETag and Last-Modified, and 304 for If-None-Match / If-Modified-Since;
            // the physical provider refuses paths outside its root and dot files (404). Without
            // STATIC_DIR (or when it does not exist: PhysicalFileProvider throws on a missing
            // root) an empty provider, so every /static/ path is a 404 and the server still starts.
            app.UseStaticFiles(new StaticFileOptions
            {
                FileProvider = StaticFiles(),
                RequestPath = "/static",
            });
            app.UseMvc();
        }

        private static IFileProvider StaticFiles()
        {
            var dir = Environment.GetEnvironmentVariable("STATIC_DIR");
            if (string.IsNullOrEmpty(dir) || !Directory.Exists(dir))
            {
                return new NullFileProvider();
            }
            return new PhysicalFileProvider(Path.GetFullPath(dir));
        }
    }
}
