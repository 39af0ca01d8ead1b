package io.llmgw.chattemplate.jinja;

import java.util.LinkedHashMap;

/** Jinja's {@code namespace()}: the one value whose attributes a template may set, across loop scopes. */
final class Namespace extends LinkedHashMap<String, Object> {
}
