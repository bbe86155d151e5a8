using System;
using System.Threading;
using Microsoft.AspNetCore;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.Logging;

namespace DotNetCoreRestService
{
    // The seed's tutorial shape (docs.microsoft.com/aspnet/core/tutorials/first-web-api, 2.x):
    // WebHost.CreateDefaultBuilder + a Startup with AddMvc + [ApiController] controllers.
    public class Program
    {
        public static void Main(string[] args)
        {
            // The single-thread scenario's knobs (subject.toml): the thread pool's worker and
            // I/O-completion threads, and the Sockets transport's I/O queues.
            var poolMax = Setting("DOTNET_THREADPOOL_MAX");
            var ioQueues = Setting("KESTREL_IOQUEUE_COUNT");
            if (poolMax > 0)
            {
                ThreadPool.SetMinThreads(poolMax, poolMax);
                if (!ThreadPool.SetMaxThreads(poolMax, poolMax))
                {
                    Console.Error.WriteLine("dotnet-aspnetcore: ThreadPool.SetMaxThreads(" + poolMax + ") refused");
                }
            }
            ThreadPool.GetMaxThreads(out var maxWorkers, out var maxIo);
            Console.Error.WriteLine(
                "dotnet-aspnetcore: Microsoft.NETCore.App " +
                System.IO.Path.GetFileName(System.IO.Path.GetDirectoryName(typeof(object).Assembly.Location)) +
                ", server GC " + System.Runtime.GCSettings.IsServerGC +
                ", processors " + Environment.ProcessorCount +
                ", thread pool max " + maxWorkers + "/" + maxIo +
                ", Sockets IOQueueCount " + (ioQueues > 0 ? ioQueues.ToString() : "default"));
            CreateWebHostBuilder(args, ioQueues).Build().Run();
        }

        private static int Setting(string name)
        {
            int value;
            return int.TryParse(Environment.GetEnvironmentVariable(name), out value) ? value : 0;
        }

        public static IWebHostBuilder CreateWebHostBuilder(string[] args, int ioQueues)
        {
            var host = Environment.GetEnvironmentVariable("HOST") ?? "127.0.0.1";
            var port = Environment.GetEnvironmentVariable("PORT") ?? "5000";
            var builder = WebHost.CreateDefaultBuilder(args)
                .SuppressStatusMessages(true)
                .ConfigureLogging(logging => logging.ClearProviders())
                .UseKestrel(options =>
                {
                    options.Limits.MaxRequestBodySize = Startup.MaxBody;
                    options.Limits.MaxRequestHeadersTotalSize = 32 * 1024;
                    options.Limits.RequestHeadersTimeout = TimeSpan.FromSeconds(30);
                })
                .UseUrls("http://" + host + ":" + port)
                .UseStartup<Startup>();
            if (ioQueues > 0)
            {
                builder = builder.UseSockets(o => o.IOQueueCount = ioQueues);
            }
            return builder;
        }
    }
}
