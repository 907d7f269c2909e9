package dev.cajon.server.command;

/** Runs one command. Arity is already checked; the handler parses options and replies. */
@FunctionalInterface
public interface Handler {
    void handle(Ctx c);
}
