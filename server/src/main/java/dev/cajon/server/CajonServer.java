package dev.cajon.server;

import dev.cajon.protocol.RequestDecoder;
import dev.cajon.server.limits.NetLimits;
import dev.cajon.server.metrics.MetricsEndpoint;
import dev.cajon.server.net.ConnectionHandler;
import dev.cajon.server.net.InputCounter;
import dev.cajon.storage.Store;
import dev.cajon.storage.expiry.ExpiryReaper;
import dev.cajon.storage.expiry.ExpiryWarmup;
import dev.cajon.storage.expiry.ExpiryWheel;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running server: opens the store (recovering it first if the last stop was unclean), then
 * binds the listening socket. Connections never see a half-recovered store.
 *
 * <p>Pipeline per connection: {@link InputCounter} → {@link RequestDecoder} (RESP and inline) →
 * {@link ConnectionHandler} (dispatch, one flush per read batch, back-pressure and Redis's
 * connection limits, which the decoder reads from it). Epoll when the native transport
 * loads, NIO otherwise; one event loop per core unless configured.
 */
public final class CajonServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CajonServer.class);

    private final ServerConfig config;
    private final Store store;
    private final ServerContext context;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Channel serverChannel;
    private final String transport;
    private final ExpiryReaper reaper;
    /** GET /metrics, with --metrics-port; else null. */
    private final MetricsEndpoint metrics;
    /** The expiry warm-up running beside the server after start, or null. */
    private volatile ExpiryWarmup warmup;
    private volatile boolean closed;

    private CajonServer(ServerConfig config, Store store, ServerContext context, EventLoopGroup boss,
                        EventLoopGroup workers, Channel serverChannel, String transport, ExpiryReaper reaper,
                        MetricsEndpoint metrics) {
        this.reaper = reaper;
        this.metrics = metrics;
        this.config = config;
        this.store = store;
        this.context = context;
        this.boss = boss;
        this.workers = workers;
        this.serverChannel = serverChannel;
        this.transport = transport;
    }

    /**
     * Opens the data directory and starts listening. Returns once connections are accepted.
     *
     * <p>Start-up time is mostly class loading and initialisation (Chronicle, Netty): the store is
     * opened on a thread of its own while this thread sets up the event loops, and the socket is
     * bound only when both are done, so no client ever sees a store that is still being opened.
     */
    public static CajonServer start(ServerConfig config) throws InterruptedException {
        ExpiryWheel wheel = new ExpiryWheel(config.clock());
        // opening the store files every persisted deadline into the wheel; the default keyspace is
        // opened up front so that the first command does not pay for a map creation
        CompletableFuture<Store> opening = new CompletableFuture<>();
        Thread opener = new Thread(() -> {
            try {
                Store s = Store.open(config.dir(), config.clock(), wheel, config.appendfsync());
                try {
                    dev.cajon.storage.Keyspace first = s.keyspace(Store.DEFAULT_APP, 0);
                    // the path that reopens an idle app's keyspace runs once now, while the event
                    // loops are being built, not cold on some app's first command (up to 50 ms in the app-cost run)
                    if (first.release()) {
                        first.exists(new byte[] {'w', 'a', 'r', 'm'});
                    }
                    // apps' keyspaces not in use give back their map and descriptor
                    s.closeIdle(java.time.Duration.ofSeconds(config.keyspaceIdleSeconds()), config.maxOpenKeyspaces());
                } catch (RuntimeException e) {
                    s.close();
                    throw e;
                }
                opening.complete(s);
            } catch (Throwable e) {
                opening.completeExceptionally(e);
            }
        }, "cajon-open");
        opener.start();
        boolean epoll;
        Class<? extends ServerChannel> channelClass;
        EventLoopGroup boss;
        EventLoopGroup workers;
        try {
            epoll = Epoll.isAvailable();
            IoHandlerFactory factory = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
            channelClass = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
            int threads = config.ioThreads() > 0 ? config.ioThreads()
                    : ServerConfig.autoIoThreads(Runtime.getRuntime().availableProcessors());
            boss = new MultiThreadIoEventLoopGroup(1, factory);
            workers = new MultiThreadIoEventLoopGroup(threads, factory);
        } catch (RuntimeException | Error e) {
            // the store is being opened meanwhile: close it once it is, so its lock is let go
            opening.thenAccept(Store::close);
            throw e;
        }
        Store store;
        try {
            store = awaitStore(opening);
        } catch (RuntimeException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                // the opener still owns the files: let it finish, then close what it opened
                opening.thenAccept(Store::close);
            }
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
        int reapers = config.expiryThreads() > 0 ? config.expiryThreads() : defaultExpiryThreads();
        ExpiryReaper reaper = config.activeExpiry() ? new ExpiryReaper(wheel, 5, reapers).start() : null;
        MetricsEndpoint metrics = null;
        try {
            ServerContext context = new ServerContext(config, store, wheel);
            if (config.metricsOn()) {
                // before the socket is bound, so every command is counted
                metrics = MetricsEndpoint.start(context, config.metricsBind(), config.metricsPort());
            }
            InputCounter counter = new InputCounter(context.stats());
            ServerBootstrap b = new ServerBootstrap()
                    .group(boss, workers)
                    .channel(channelClass)
                    .option(ChannelOption.SO_BACKLOG, 511)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                            new WriteBufferWaterMark(NetLimits.LOW_WATER, (int) NetLimits.PAUSE_BYTES))
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast("in", counter);
                            ConnectionHandler handler = new ConnectionHandler(context);
                            ch.pipeline().addLast("decoder", new RequestDecoder(handler));
                            ch.pipeline().addLast("handler", handler);
                        }
                    });
            // Redis's clientsCron closes idle clients (timeout); once a second here
            boss.next().scheduleAtFixedRate(context.connections()::sweep, 1, 1, TimeUnit.SECONDS);
            Channel ch = b.bind(new InetSocketAddress(config.bind(), config.port())).sync().channel();
            context.port(((InetSocketAddress) ch.localAddress()).getPort());
            CajonServer server = new CajonServer(config, store, context, boss, workers, ch, epoll ? "epoll" : "nio", reaper,
                    metrics);
            // SHUTDOWN in a server embedded without a launcher: close it (off the event loop)
            context.onShutdownRequest(() -> new Thread(server::close, "cajon-shutdown").start());
            if (reaper != null && config.expiryWarmup()) {
                // the first expiry storm of this JVM should meet compiled code (ExpiryWarmup);
                // not if a SHUTDOWN has closed the server already
                synchronized (server) {
                    if (!server.closed) {
                        server.warmup = ExpiryWarmup.start();
                    }
                }
            }
            return server;
        } catch (Exception e) {
            // also a BindException, which Netty rethrows without declaring it
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            if (metrics != null) {
                metrics.close();
            }
            if (reaper != null) {
                reaper.close();
            }
            store.close();
            throw e;
        }
    }

    /**
     * Reaper threads unless configured: one per core, of which only the first runs all the time;
     * the others join in when the wheel falls behind the clock (see {@link ExpiryReaper}). Two
     * per core was tried on 2 cores: over eight storm runs the 99th percentile lag was no better
     * (89-430 ms, median 134, against 64-505 ms, median 136, over seven runs with one per core)
     * and the GET/SET throughput during the storm was lower (median 47 % of quiet against 53 %).
     */
    static int defaultExpiryThreads() {
        return Runtime.getRuntime().availableProcessors();
    }

    /** The opened store, or the opener's failure rethrown as it was (unchecked) on this thread. */
    private static Store awaitStore(CompletableFuture<Store> opening) throws InterruptedException {
        try {
            return opening.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        }
    }

    public int port() {
        return context.port();
    }

    public ServerContext context() {
        return context;
    }

    public Store store() {
        return store;
    }

    public String transport() {
        return transport;
    }

    public ServerConfig config() {
        return config;
    }

    /** Where GET /metrics is served, or null without --metrics-port. */
    public InetSocketAddress metricsAddress() {
        return metrics == null ? null : metrics.address();
    }

    /**
     * Stops accepting, lets the event loops finish the commands and replies in flight, then
     * closes every map (which marks the data directory as cleanly closed).
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (metrics != null) {
                metrics.close();
            }
            serverChannel.close().syncUninterruptibly();
            boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
            workers.shutdownGracefully(100, 5_000, TimeUnit.MILLISECONDS).syncUninterruptibly();
        } finally {
            ExpiryWarmup w = warmup;
            if (w != null) {
                w.close();
            }
            if (reaper != null) {
                reaper.close();
            }
            store.close();
            log.info("Cajon stopped; data in {} closed cleanly", config.dir().toAbsolutePath());
        }
    }
}
