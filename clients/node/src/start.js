// Starting an emulator for a test run: the image under Testcontainers for Node (an optional
// peer dependency, imported only here), or a local `payments-emulator serve` process.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const PORT = 8400; // the image's
const POLL_MS = 50; // between health checks of a starting process

/** An emulator did not come up. */
export class EmulatorStartError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'EmulatorStartError';
  }
}

/** A TCP port free on 127.0.0.1 now (the kernel's pick; `serve` takes 1..65535, not 0). */
async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** {url, adminToken, stop} of a started emulator. */
export async function start(options = {}) {
  if (options.command) return startProcess(options);
  if (options.image) return startContainer(options);
  throw new EmulatorStartError(
    "Emulator.start needs {image: 'payments-emulator'} (Testcontainers) or" +
      " {command: 'path/to/payments-emulator'} (a local process)",
  );
}

async function startProcess({ command, args = [], env = {}, adminToken, timeoutMs = 20_000 }) {
  const port = await freePort();
  const own = args.includes('--db') || args.includes('--ephemeral') ? [] : ['--ephemeral'];
  if (adminToken) own.push('--admin-token', adminToken);
  const argv = ['serve', '--host', '127.0.0.1', '--port', String(port), ...own, ...args];
  const environment = { ...process.env, ...env };
  const flag = args.indexOf('--admin-token');
  // the token serve requires: given here, in its flags, or in the environment it inherits
  const token = adminToken || (flag >= 0 ? args[flag + 1] : environment.EMULATOR_ADMIN_TOKEN) || null;
  let child;
  try {
    child = spawn(command, argv, { env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    throw new EmulatorStartError(`cannot run ${command}: ${error.message}`, { cause: error });
  }
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk).slice(-4000);
  };
  child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  let exited = null;
  const ended = new Promise((resolve) => {
    child.on('error', (error) => {
      exited = `cannot run ${command}: ${error.message}`;
      resolve();
    });
    child.on('exit', (code, signal) => {
      exited ??= `${command} exited (${signal ?? code}) before it answered`;
      resolve();
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const orphaned = () => child.kill('SIGKILL'); // this process ends without stop(): so does it
  process.once('exit', orphaned);
  const stop = async () => {
    process.off('exit', orphaned);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await ended;
      clearTimeout(killer);
    }
  };
  for (let waited = 0; waited <= timeoutMs; waited += POLL_MS) {
    if (exited !== null) throw new EmulatorStartError(`${exited}:\n${output.trim()}`);
    try {
      const response = await fetch(`${url}/_emulator/health`, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return { url, adminToken: token, stop };
    } catch {
      // not listening yet
    }
    await sleep(POLL_MS);
  }
  await stop();
  throw new EmulatorStartError(
    `${command} did not answer GET ${url}/_emulator/health in ${timeoutMs} ms:\n${output.trim()}`,
  );
}

async function startContainer({ image, env = {}, adminToken, timeoutMs = 60_000 }) {
  let testcontainers;
  try {
    testcontainers = await import('testcontainers');
  } catch (error) {
    throw new EmulatorStartError(
      `Emulator.start({image: ${JSON.stringify(image)}}) needs the testcontainers package` +
        ' (npm install --save-dev testcontainers) and Docker; or give {command} to run a local' +
        ` payments-emulator (${error.code ?? error.message})`,
      { cause: error },
    );
  }
  const { GenericContainer, Wait } = testcontainers.GenericContainer ? testcontainers : testcontainers.default;
  const token = adminToken ?? randomBytes(16).toString('hex');
  let container;
  try {
    container = await new GenericContainer(image)
      .withExposedPorts(PORT)
      .withEnvironment({ EMULATOR_EPHEMERAL: '1', ...env, EMULATOR_ADMIN_TOKEN: token })
      .withWaitStrategy(Wait.forHttp('/_emulator/health', PORT).forStatusCode(200))
      .withStartupTimeout(timeoutMs)
      .start();
  } catch (error) {
    throw new EmulatorStartError(`the image ${image} did not start: ${error.message}`, { cause: error });
  }
  const url = `http://${container.getHost()}:${container.getMappedPort(PORT)}`;
  return { url, adminToken: token, stop: async () => { await container.stop(); } };
}
