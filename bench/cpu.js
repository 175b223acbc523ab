'use strict';
/**
 * CPU time of the system's processes, from /proc/<pid>/stat (utime + stime, in clock ticks): every process
 * descending from the launcher the bench started, named by what it runs (gateway, inventory, qr, monitor,
 * notifier, postgres: the server and all its backends together), plus this process (autocannon and the raw
 * baselines' pg client) from process.cpuUsage(). Without a launcher (BENCH_URL) only this process is known.
 */
const fs = require('node:fs');
const { execFileSync } = require('node:child_process');

let ticksPerSecond;
function clockTicks() {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** pid → { ppid, ticks } for every process we can read. */
function processTable() {
  const table = new Map();
  let entries = [];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return table;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name (field 2) is in parentheses and may hold spaces: split after its closing one.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(entry), { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

function nameOf(pid) {
  let argv;
  try {
    argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
  const script = argv.find((a) => /services\/[a-z]+\/dist\/src\/main\.js$/.test(a));
  if (script) return /services\/([a-z]+)\//.exec(script)[1];
  if (/(^|\/)postgres$/.test(argv[0]) || /^postgres:/.test(argv[0])) return 'postgres';
  return undefined;
}

/**
 * CPU seconds so far of each of `rootPid`'s named descendants (by pid: a backend that starts during a run
 * counts from zero, one that exits is left out rather than subtracted), and of this process (`bench`).
 */
function sample(rootPid) {
  const processes = new Map();
  if (rootPid) {
    const table = processTable();
    const children = new Map();
    for (const [pid, { ppid }] of table) {
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(pid);
    }
    const stack = [...(children.get(rootPid) || [])];
    while (stack.length) {
      const pid = stack.pop();
      stack.push(...(children.get(pid) || []));
      const name = nameOf(pid);
      if (name) processes.set(pid, { name, seconds: table.get(pid).ticks / clockTicks() });
    }
  }
  const own = process.cpuUsage();
  return { processes, bench: (own.user + own.system) / 1e6 };
}

/** CPU µs per request of each process name between two samples. */
function perRequest(before, after, requests) {
  if (!requests) return {};
  const used = { bench: after.bench - before.bench };
  for (const [pid, { name, seconds }] of after.processes) {
    const earlier = before.processes.get(pid);
    used[name] = (used[name] || 0) + seconds - (earlier && earlier.name === name ? earlier.seconds : 0);
  }
  const out = {};
  for (const [name, seconds] of Object.entries(used)) if (seconds > 0) out[name] = Math.round((seconds * 1e6) / requests);
  return out;
}

module.exports = { sample, perRequest };
