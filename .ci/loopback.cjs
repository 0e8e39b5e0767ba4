'use strict';
// Preload (NODE_OPTIONS=--require <this file>) that keeps test servers off the network:
// every net.Server listen() call that would bind a TCP port (http.Server and express use
// net.Server.prototype.listen) is forced onto host 127.0.0.1. Unix sockets, pipes and
// inherited handles are left alone.
const net = require('net');

const LOOPBACK = '127.0.0.1';
const original = net.Server.prototype.listen;

function isPort(v) {
  return typeof v === 'number' || (typeof v === 'string' && /^\s*\d+\s*$/.test(v));
}

net.Server.prototype.listen = function listen(...args) {
  const first = args[0];
  if (first === undefined || first === null || typeof first === 'function') {
    // listen() / listen(cb): a random port on every interface.
    args.splice(0, first === undefined || first === null ? 1 : 0, 0, LOOPBACK);
  } else if (isPort(first)) {
    // listen(port[, host][, backlog][, callback])
    const second = args[1];
    if (typeof second === 'string' || second === undefined || second === null) {
      if (args.length > 1) {
        args[1] = LOOPBACK;
      } else {
        args.push(LOOPBACK);
      }
    } else {
      args.splice(1, 0, LOOPBACK);
    }
  } else if (typeof first === 'object' && !(first instanceof net.Server) &&
             first.path === undefined && first.fd === undefined && first.handle === undefined &&
             first._handle === undefined) {
    // listen(options[, callback])
    args[0] = Object.assign({}, first, { host: LOOPBACK });
  }
  return original.apply(this, args);
};
