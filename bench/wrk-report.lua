-- Prints wrk's results as one JSON line (latencies in microseconds), for bench/lib/wrk.ts to read.
done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format(
    'WRK_JSON {"requests":%d,"durationUs":%d,"errors":%d,"non2xx":%d,"p50Us":%d,"p90Us":%d,"p99Us":%d,"maxUs":%d}\n',
    summary.requests, summary.duration, errors, summary.errors.status,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
