package dev.cajon.bench.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Replaces one generated section of a Markdown file, between a begin and an end marker, and keeps
 * everything else in the file as it was. A missing file is created; a file without the markers
 * gets the section appended. The file is written to a temporary sibling and moved into place, so
 * an interrupted run never leaves a half-written document.
 */
public final class MarkdownSection {

    private MarkdownSection() {
    }

    public static void write(Path file, String name, String body) throws IOException {
        String begin = "<!-- " + name + ":begin -->";
        String end = "<!-- " + name + ":end -->";
        String section = begin + "\n" + body.strip() + "\n" + end;
        String old = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8)
                : "# Cajon benchmarks\n";
        int b = old.indexOf(begin);
        int e = b < 0 ? -1 : old.indexOf(end, b);
        String updated;
        if (b >= 0 && e >= 0) {
            updated = old.substring(0, b) + section + old.substring(e + end.length());
        } else {
            updated = old.stripTrailing() + "\n\n" + section + "\n";
        }
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path tmp = Files.createTempFile(parent, ".bench-", ".md");
        Files.writeString(tmp, updated, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
