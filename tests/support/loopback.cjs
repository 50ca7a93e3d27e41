// Preloaded (`node -r`) into servers started by the tests: every listening
// socket binds 127.0.0.1, whatever the server asks for (the MCP reference
// server binds all interfaces).
const net = require('net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const port = args[0];
  if (typeof port === 'number' || (typeof port === 'string' && /^\d+$/.test(port))) {
    return listen.call(this, Number(port), '127.0.0.1', ...args.slice(1).filter((a) => typeof a === 'function'));
  }
  if (port && typeof port === 'object' && !port.path) args[0] = { ...port, host: '127.0.0.1' };
  return listen.apply(this, args);
};
