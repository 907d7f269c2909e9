package dev.cajon.server.compat;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContextProvider;

/**
 * Use instead of {@code @Test} on a comparison test: the method runs twice, as two JUnit tests
 * named {@code [RESP2]} and {@code [RESP3]}, and every {@link Scenario} it builds through
 * {@link ComparisonTestBase#scenario} runs in that invocation's protocol (jedis-mock's
 * {@code @TestTemplate} idea, with the protocol as the parameter). A RESP3 failure therefore
 * never hides, or is hidden by, the RESP2 result of the same scenario.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@TestTemplate
@ExtendWith(BothProtocols.Provider.class)
@interface BothProtocols {

    /** One invocation per {@link Protocol}, each setting the test instance's protocol around the call. */
    final class Provider implements TestTemplateInvocationContextProvider {
        @Override
        public boolean supportsTestTemplate(ExtensionContext context) {
            return ComparisonTestBase.class.isAssignableFrom(context.getRequiredTestClass());
        }

        @Override
        public Stream<TestTemplateInvocationContext> provideTestTemplateInvocationContexts(ExtensionContext context) {
            return Stream.of(Protocol.values()).map(Provider::invocation);
        }

        private static TestTemplateInvocationContext invocation(Protocol p) {
            return new TestTemplateInvocationContext() {
                @Override
                public String getDisplayName(int invocationIndex) {
                    return p.label();
                }

                @Override
                public List<Extension> getAdditionalExtensions() {
                    return List.of(
                            (BeforeEachCallback) c -> base(c).protocol = p,
                            (AfterEachCallback) c -> base(c).protocol = Protocol.RESP2);
                }
            };
        }

        private static ComparisonTestBase base(ExtensionContext c) {
            return (ComparisonTestBase) c.getRequiredTestInstance();
        }
    }
}
