"""A real Redis Cluster for tests: redis-servers with `--cluster-enabled yes` on free ports of
127.0.0.1 (3 masters, and a replica of each), joined by `redis-cli --cluster create`, every write
fsynced (appendfsync always). A master can be killed, and its replica is then promoted (the
nodes time each other out after a second). A key's slot can be moved to another master by hand,
as `redis-cli --cluster reshard` moves each slot, with a pause between its steps."""

import contextlib
import os
import random
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import redis

from bot.store.redis_server import RedisServer, find_redis_server

NODE_TIMEOUT_MS = 1000


BUS_OFFSET = 10000
"""A node's cluster bus listens on its port + 10000 (redis-server 6 has no --cluster-port)."""


def cluster_port() -> int:
    """A free port whose bus port (+ 10000) is free too, both below the ports the system hands
    out to outgoing connections (`ip_local_port_range`): a port from that range, free when
    probed, was at times taken by a connection before the node bound it ("Failed listening on
    port … (cluster), aborting"); below it, only a listening server can hold a port, and the
    probe sees that."""
    below = max(_ephemeral_low(), FIRST_PORT + BUS_OFFSET + 1000)
    while True:
        port = random.randrange(FIRST_PORT, below - BUS_OFFSET)
        if all(_free(candidate) for candidate in (port, port + BUS_OFFSET)):
            return port


FIRST_PORT = 10000
"""The lowest port a node takes (its bus port is then 20000 or above)."""


def _ephemeral_low() -> int:
    """The first port of the system's range for outgoing connections (32768 where unknown)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _free(port: int) -> bool:
    """Whether nothing listens on `port` of 127.0.0.1 now."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class ClusterNode(RedisServer):
    """One node of a test cluster."""

    def __init__(self, root: Path, port: int, executable: str | None = None) -> None:
        super().__init__(root, port=port, appendfsync="always", executable=executable)

    def command(self) -> list[str]:
        return [
            *super().command(),
            "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", str(NODE_TIMEOUT_MS),
            "--cluster-replica-validity-factor", "0",  # any replica may take over
        ]  # fmt: skip

    @contextlib.contextmanager
    def frozen(self) -> Iterator[None]:
        """The node stopped (SIGSTOP: its connections held open, nothing answered) for the
        block, then let go on (SIGCONT)."""
        assert self.pid is not None
        os.kill(self.pid, signal.SIGSTOP)
        try:
            yield
        finally:
            os.kill(self.pid, signal.SIGCONT)


def redis_cli() -> str:
    """redis-cli beside the redis-server in use."""
    return str(Path(find_redis_server()).with_name("redis-cli"))


class Cluster:
    """`masters` masters with `replicas` replicas each, in `root`, each node the redis-server
    `executable` (else the one in use)."""

    def __init__(
        self, root: Path, masters: int = 3, replicas: int = 1, executable: str | None = None
    ) -> None:
        self.nodes = [
            ClusterNode(root / f"node{n}", cluster_port(), executable)
            for n in range(masters * (1 + replicas))
        ]
        self.replicas = replicas

    @property
    def url(self) -> str:
        """A URL of one node (a cluster client finds the others)."""
        live = next(node for node in self.nodes if node.running)
        return f"redis://127.0.0.1:{live.port}/0"

    def start(self) -> None:
        for node in self.nodes:
            node.start()
        addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
        done = subprocess.run(
            [
                redis_cli(), "--cluster", "create", *addresses,
                "--cluster-replicas", str(self.replicas), "--cluster-yes",
            ],
            check=False,
            capture_output=True,
            text=True,
            timeout=60,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed: {done.stdout}{done.stderr}")
        self.wait_ok()

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

    def info(self, node: RedisServer) -> dict[str, str]:
        with redis.Redis(port=node.port) as client:
            text = client.execute_command("CLUSTER", "INFO")
        if isinstance(text, bytes):
            text = text.decode()
        if isinstance(text, dict):
            return {str(k): str(v) for k, v in text.items()}
        return dict(line.split(":", 1) for line in str(text).split() if ":" in line)

    def wait_ok(self, timeout: float = 30.0) -> None:
        """Until every running node says the cluster is ok, knows every node and maps each
        master's replicas."""
        deadline = time.monotonic() + timeout
        while True:
            live = [node for node in self.nodes if node.running]
            infos = [self.info(node) for node in live]
            if (
                all(i.get("cluster_state") == "ok" for i in infos)
                and all(int(i.get("cluster_known_nodes", 0)) == len(self.nodes) for i in infos)
                and self.replicated()
                and self.mapped()
            ):
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"the cluster is not ok: {infos}")
            time.sleep(0.1)

    def replicated(self) -> bool:
        """Whether every master has its replicas online (in sync, taking writes)."""
        for node in self.nodes:
            if not node.running:
                continue
            with redis.Redis(port=node.port) as client:
                info = client.info("replication")
            if info.get("role") != "master":
                continue
            online = [
                value
                for key, value in info.items()
                if key.startswith("slave")
                and isinstance(value, dict)
                and value.get("state") == "online"
            ]
            if len(online) < self.replicas:
                return False
        return True

    def mapped(self) -> bool:
        """Whether every running node's slot map (CLUSTER SLOTS, which clients read) names the
        replicas of every master."""
        for node in self.nodes:
            if not node.running:
                continue
            with redis.Redis(port=node.port) as client:
                for _start, _end, _master, *replicas in client.execute_command("CLUSTER", "SLOTS"):
                    if len(replicas) < self.replicas:
                        return False
        return True

    @contextlib.contextmanager
    def patient(self) -> Iterator[None]:
        """For the block, the nodes wait five minutes (not `NODE_TIMEOUT_MS`) before they take
        a master for failed: one frozen or restarted is not failed over meanwhile."""
        self._node_timeout(300_000)
        try:
            yield
        finally:
            self._node_timeout(NODE_TIMEOUT_MS)

    def _node_timeout(self, ms: int) -> None:
        for node in self.nodes:
            if node.running:
                with redis.Redis(port=node.port) as client:
                    client.config_set("cluster-node-timeout", ms)

    def master_of(self, key: str) -> ClusterNode:
        """The node that serves `key` now."""
        live = next(node for node in self.nodes if node.running)
        with redis.Redis(port=live.port) as client:
            slot = int(client.execute_command("CLUSTER", "KEYSLOT", key))
            for start, end, master, *_ in client.execute_command("CLUSTER", "SLOTS"):
                if start <= slot <= end:
                    port = int(master[1])
                    return next(node for node in self.nodes if node.port == port)
        raise LookupError(f"no node serves {key}")

    def replica_of(self, key: str) -> ClusterNode:
        """A replica of the node that serves `key`."""
        master = self.master_of(key)
        with redis.Redis(port=master.port) as client:
            info = client.info("replication")
        for name, value in info.items():
            if name.startswith("slave") and isinstance(value, dict):
                return next(node for node in self.nodes if node.port == int(value["port"]))
        raise LookupError(f"{key}'s master has no replica")

    def kill_master(self, key: str, timeout: float = 30.0) -> ClusterNode:
        """SIGKILL the master of `key` and wait until its replica serves the key's slot."""
        master = self.master_of(key)
        master.kill()
        deadline = time.monotonic() + timeout
        while True:
            try:
                now = self.master_of(key)
                if now is not master and now.running:
                    self.wait_ok_without(master, deadline - time.monotonic())
                    return master
            except (redis.RedisError, OSError, StopIteration):
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"no replica took over from {master.port}")
            time.sleep(0.1)

    def wait_ok_without(self, gone: ClusterNode, timeout: float) -> None:
        deadline = time.monotonic() + max(timeout, 1.0)
        while True:
            infos = [self.info(node) for node in self.nodes if node.running]
            if all(i.get("cluster_state") == "ok" for i in infos):
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"the cluster is not ok after {gone.port} died: {infos}")
            time.sleep(0.1)

    def node_id(self, node: ClusterNode) -> str:
        with redis.Redis(port=node.port) as client:
            return str(client.execute_command("CLUSTER", "MYID").decode())

    def masters(self) -> list[ClusterNode]:
        """The running nodes that are masters now."""
        found = []
        for node in self.nodes:
            if node.running:
                with redis.Redis(port=node.port) as client:
                    if client.info("replication").get("role") == "master":
                        found.append(node)
        return found

    def begin_moving(self, key: str) -> tuple[ClusterNode, ClusterNode]:
        """Mark the slot of `key` as moving from its master (the source, MIGRATING) to another
        master (the target, IMPORTING), no key moved yet; (source, target)."""
        source = self.master_of(key)
        target = next(node for node in self.masters() if node is not source)
        with redis.Redis(port=source.port) as client:
            slot = int(client.execute_command("CLUSTER", "KEYSLOT", key))
        with redis.Redis(port=target.port) as client:
            client.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", self.node_id(source))
        with redis.Redis(port=source.port) as client:
            client.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", self.node_id(target))
        return source, target

    def finish_moving(self, key: str, source: ClusterNode, target: ClusterNode) -> None:
        """Move every key of the slot of `key` from `source` to `target` (MIGRATE), then give
        the slot to `target` (SETSLOT NODE, on the target first, then on every other master),
        until every node's slot map says so."""
        with redis.Redis(port=source.port) as client:
            slot = int(client.execute_command("CLUSTER", "KEYSLOT", key))
            while names := client.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 100):
                client.execute_command(
                    "MIGRATE", "127.0.0.1", target.port, "", 0, 5000, "KEYS", *names
                )
        owner = self.node_id(target)
        for node in [target, *(node for node in self.masters() if node is not target)]:
            with redis.Redis(port=node.port) as client:
                client.execute_command("CLUSTER", "SETSLOT", slot, "NODE", owner)
        deadline = time.monotonic() + 30
        while any(self.owner(node, slot) != target.port for node in self.nodes if node.running):
            if time.monotonic() > deadline:
                raise TimeoutError(f"not every node maps slot {slot} to {target.port}")
            time.sleep(0.05)

    def owner(self, node: ClusterNode, slot: int) -> int | None:
        """The port of the master that serves `slot` as `node`'s slot map says."""
        with redis.Redis(port=node.port) as client:
            for start, end, master, *_ in client.execute_command("CLUSTER", "SLOTS"):
                if start <= slot <= end:
                    return int(master[1])
        return None

    def acknowledged(self, master: ClusterNode) -> bool:
        """Whether the master's ROLE names a replica that acknowledged some of its stream (not
        one that is being sent, or is loading, a full resync)."""
        with redis.Redis(port=master.port) as client:
            _role, _offset, replicas = client.execute_command("ROLE")
        return any(int(acked) > 0 for _host, _port, acked in replicas)

    def calls(self, node: ClusterNode, command: str) -> int:
        """How many times the node ran `command` (`wait`) so far."""
        with redis.Redis(port=node.port) as client:
            stats = client.info("commandstats")
        found = stats.get(f"cmdstat_{command}", {})
        return int(found.get("calls", 0)) if isinstance(found, dict) else 0

    def wait_unmapped(self, gone: ClusterNode, timeout: float = 30.0) -> None:
        """Until no running node's slot map names `gone` (the cluster marked it as failed)."""
        deadline = time.monotonic() + timeout
        while True:
            named = False
            for node in self.nodes:
                if node.running:
                    with redis.Redis(port=node.port) as client:
                        for _start, _end, *serving in client.execute_command("CLUSTER", "SLOTS"):
                            named = named or any(int(n[1]) == gone.port for n in serving)
            if not named:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"the slot map still names {gone.port}")
            time.sleep(0.1)

    def errors(self, node: ClusterNode, code: str) -> int:
        """How many errors `code` (`TRYAGAIN`, `MOVED`, `ASK`) the node answered so far."""
        with redis.Redis(port=node.port) as client:
            stats = client.info("errorstats")
        found = stats.get(f"errorstat_{code}", {})
        return int(found.get("count", 0)) if isinstance(found, dict) else 0
