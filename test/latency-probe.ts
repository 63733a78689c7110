/**
 * A normal client in a process of its own, so what it measures is the server and not the event
 * loop of a test that is busy attacking: GETs `url` at `perSecond` from the given loopback source
 * addresses (round robin) until SIGTERM, then prints `{latencies, slow, failures}` as JSON.
 * Run: node --import tsx test/latency-probe.ts <url> <perSecond> <address,address,...>
 */
import { request } from 'node:http';

const [url = '', perSecondText = '30', addressList = '127.0.0.1'] = process.argv.slice(2);
const addresses = addressList.split(',');
const perSecond = Number(perSecondText);
const latencies: number[] = [];
const slow: [number, number][] = [];
const failures: string[] = [];
const origin = performance.now();
let n = 0;
let pending = 0;

const timer = setInterval(() => {
  const localAddress = addresses[n++ % addresses.length];
  const started = performance.now();
  pending++;
  const req = request(url, { localAddress }, (res) => {
    res.resume();
    res.on('end', () => {
      pending--;
      const latency = performance.now() - started;
      latencies.push(latency);
      if (latency > 100) slow.push([Math.round(started - origin), Math.round(latency)]);
      if (res.statusCode !== 200) failures.push(String(res.statusCode));
    });
  });
  req.on('error', (error) => {
    pending--;
    failures.push(error.message);
  });
  req.end();
}, 1000 / perSecond);

process.once('SIGTERM', () => {
  clearInterval(timer);
  const finish = () => {
    process.stdout.write(JSON.stringify({ latencies, slow, failures }));
    process.exit(0);
  };
  const deadline = Date.now() + 2_000;
  const wait = () => (pending === 0 || Date.now() > deadline ? finish() : setTimeout(wait, 20));
  wait();
});
process.stdout.write('ready\n');
