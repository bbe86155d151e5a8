using System.ComponentModel.DataAnnotations;
using System.Threading.Tasks;
using Microsoft.AspNetCore.Mvc;

namespace DotNetCoreRestService.Controllers
{
    // GET /delay/{ms}: an async action that awaits Task.Delay, so a waiting request holds no
    // thread-pool thread; the string answers as text/plain as TestController's does.
    // [ApiController] answers 400 by itself, before the action runs (so without a wait), when
    // {ms} is not a number (binding) or lies outside 0..10,000 ([Range] validation).
    [Route("delay")]
    [ApiController]
    public class DelayController : ControllerBase
    {
        [HttpGet("{ms}")]
        public async Task<ActionResult<string>> Get([Range(0, 10000)] int ms)
        {
            await Task.Delay(ms);
            return ms.ToString();
        }
    }
}
