# workerd's configuration for the edge tests: the bundle of worker.ts as two
# Workers, the example agent and the generated client (a binding tells each
# its role). harness.ts puts this file beside worker.js and gives each socket
# a free port with --socket-addr; 127.0.0.1:8787 and :8788 are only defaults.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "agent", worker = .agent),
    (name = "client", worker = .client),
    # The client calls a Node agent on 127.0.0.1: the default outbound
    # network reaches only public addresses.
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = [
    (name = "agent", address = "127.0.0.1:8787", http = (), service = "agent"),
    (name = "client", address = "127.0.0.1:8788", http = (), service = "client"),
  ],
);

const agent :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "2026-11-23",
  bindings = [(name = "role", text = "agent")],
);

const client :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "2026-11-23",
  bindings = [(name = "role", text = "client")],
  globalOutbound = "loopback",
);
