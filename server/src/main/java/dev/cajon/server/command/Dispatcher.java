package dev.cajon.server.command;

import dev.cajon.protocol.Argv;
import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.ServerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the generic checks every command goes through, always in Redis's order (see
 * {@code processCommand} in Redis's server.c), then the handler:
 * <ol>
 *   <li>unknown command, then unknown subcommand of a container command;</li>
 *   <li>arity (of the subcommand, if any);</li>
 *   <li>authentication (commands flagged {@code no_auth} are exempt);</li>
 *   <li>the handler, with a {@link CommandError} turned into its error reply.</li>
 * </ol>
 * Handlers never check arity or authentication themselves.
 */
public final class Dispatcher {
    private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

    private final ServerContext server;
    private final CommandTable table;

    public Dispatcher(ServerContext server, CommandTable table) {
        this.server = server;
        this.table = table;
    }

    public CommandTable table() {
        return table;
    }

    public void dispatch(Ctx c, Argv argv) {
        CommandSpec spec = table.lookup(argv.arg(0));
        if (spec == null) {
            c.error(RedisErrors.unknownCommand(argv));
            return;
        }
        if (spec.isContainer() && argv.argc() >= 2) {
            CommandSpec sub = CommandTable.lookupSub(spec, argv.arg(1));
            if (sub == null) {
                c.error(RedisErrors.unknownSubcommand(argv.arg(1), spec.name()));
                return;
            }
            spec = sub;
        }
        if (!spec.arityOk(argv.argc())) {
            c.error(RedisErrors.wrongArity(spec.name()));
            return;
        }
        if (!c.session().authenticated() && !spec.has(CommandFlag.NO_AUTH)) {
            c.error(RedisErrors.NOAUTH);
            return;
        }
        server.stats().commandsProcessed.increment();
        c.session().touched(spec.name(), server.clock().nowMillis());
        c.begin(argv, spec);
        try {
            spec.handler().handle(c);
        } catch (CommandError e) {
            c.error(e.getMessage());
        } catch (RuntimeException e) {
            log.error("command {} failed", spec.name(), e);
            c.error(RedisErrors.internalError(e));
        }
    }
}
