using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.DependencyInjection;
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
            app.UseMvc();
        }
    }
}
