using System.ComponentModel.DataAnnotations;
using System.IO;
using Microsoft.AspNetCore.Mvc;

namespace DotNetCoreRestService.Controllers
{
    // GET /download/{n}: the first n bytes of a 10 MiB pattern made once (byte i is i mod 256),
    // sent by MVC's FileStreamResult from a read-only MemoryStream over it (no copy), which sets
    // Content-Length from the stream. [ApiController] answers 400 before the action when {n} is
    // not a number or lies outside 0..10 MiB ([Range] validation).
    [Route("download")]
    [ApiController]
    public class DownloadController : ControllerBase
    {
        public const int Max = 10 * 1024 * 1024;

        private static readonly byte[] Pattern = MakePattern();

        private static byte[] MakePattern()
        {
            var bytes = new byte[Max];
            for (var i = 0; i < bytes.Length; i++)
            {
                bytes[i] = (byte)i;
            }
            return bytes;
        }

        [HttpGet("{n}")]
        public ActionResult Get([Range(0, Max)] int n)
        {
            return File(new MemoryStream(Pattern, 0, n, false), "application/octet-stream");
        }
    }
}
