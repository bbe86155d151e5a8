using System.Threading.Tasks;
using Microsoft.AspNetCore.Mvc;

namespace DotNetCoreRestService.Controllers
{
    // POST /upload: the length and CRC-32 of the bytes read from Request.Body (so a chunked body
    // is counted the same as one with Content-Length), as text/plain "<length> <8 hex digits>".
    // Kestrel's MaxRequestBodySize (1 MiB) fails the read of a longer body with a 413.
    [Route("upload")]
    [ApiController]
    public class UploadController : ControllerBase
    {
        [HttpPost]
        public async Task<ActionResult<string>> Post()
        {
            var buffer = new byte[16 * 1024];
            long length = 0;
            uint crc = Crc32.Initial;
            int read;
            while ((read = await Request.Body.ReadAsync(buffer, 0, buffer.Length)) > 0)
            {
                crc = Crc32.Update(crc, buffer, read);
                length += read;
            }
            return length + " " + Crc32.Final(crc).ToString("x8");
        }
    }

    // CRC-32 of IEEE 802.3 (zlib's and gzip's: reflected polynomial 0xEDB88320), by the usual
    // 256-entry table. Written out because .NET Core 2.2 has no CRC-32 API: System.IO.Hashing's
    // Crc32 is a later NuGet package, and NuGet is not reachable here.
    public static class Crc32
    {
        public const uint Initial = 0xFFFFFFFF;

        private static readonly uint[] Table = MakeTable();

        private static uint[] MakeTable()
        {
            var table = new uint[256];
            for (uint n = 0; n < 256; n++)
            {
                var c = n;
                for (var k = 0; k < 8; k++)
                {
                    c = (c & 1) != 0 ? 0xEDB88320 ^ (c >> 1) : c >> 1;
                }
                table[n] = c;
            }
            return table;
        }

        public static uint Update(uint crc, byte[] bytes, int count)
        {
            var table = Table;
            for (var i = 0; i < count; i++)
            {
                crc = table[(crc ^ bytes[i]) & 0xFF] ^ (crc >> 8);
            }
            return crc;
        }

        public static uint Final(uint crc)
        {
            return crc ^ 0xFFFFFFFF;
        }
    }
}
