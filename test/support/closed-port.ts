/**
 * A loopback port nothing listens on, for "the service (or Redis) is down". Port 1 (tcpmux) is privileged and
 * unused, so a connection to it is refused at once and no test process ever takes it. A port from `freePort()`
 * is only free when asked: another worker's service can bind it before the test connects, and the test then
 * talks to that service instead (seen in a full run: the gateway "in front of a stopped inventory" proxied to
 * another worker's gateway, which answered 401).
 */
export const CLOSED_PORT = 1;
