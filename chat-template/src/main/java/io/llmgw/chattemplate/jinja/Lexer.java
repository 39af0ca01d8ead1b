package io.llmgw.chattemplate.jinja;

import io.llmgw.chattemplate.jinja.Token.Kind;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts a template into tokens with the whitespace rules Hugging Face renders chat templates with: {@code trim_blocks}
 * (the newline after a block or comment tag goes), {@code lstrip_blocks} (spaces and tabs before a block or comment
 * tag that starts its line go), {@code -} inside a delimiter (all whitespace on that side goes) and no trailing
 * newline kept.
 */
final class Lexer {
  private static final String[] OPERATORS = {"**", "//", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<",
      ">", "=", "(", ")", "[", "]", "{", "}", ",", ".", ":", "|"};

  private final String src;
  private final List<Token> tokens = new ArrayList<>();
  private int pos;
  private boolean stripNextText;

  private Lexer(String source) {
    String s = source;
    if (s.endsWith("\r\n")) {
      s = s.substring(0, s.length() - 2);
    } else if (s.endsWith("\n")) {
      s = s.substring(0, s.length() - 1);
    }
    this.src = s;
  }

  static List<Token> tokenize(String source) {
    Lexer lexer = new Lexer(source);
    lexer.run();
    return lexer.tokens;
  }

  private void run() {
    while (pos < src.length()) {
      int open = nextTag(pos);
      String text = src.substring(pos, open < 0 ? src.length() : open);
      if (open < 0) {
        text(text);
        break;
      }
      char kind = src.charAt(open + 1);
      char marker = open + 2 < src.length() ? src.charAt(open + 2) : 0;
      if (marker == '-') {
        text = text.stripTrailing();
      } else if (kind != '{' && marker != '+') {
        text = lstripBlock(text, open);
      }
      text(text);
      pos = open + 2 + (marker == '-' || marker == '+' ? 1 : 0);
      if (kind == '#') {
        int end = src.indexOf("#}", pos);
        if (end < 0) {
          throw error("a comment is not closed", open);
        }
        afterClose(end, '#');
        continue;
      }
      tokens.add(new Token(kind == '{' ? Kind.EXPR_OPEN : Kind.STMT_OPEN, src.substring(open, open + 2), open));
      expression(kind == '{' ? '}' : '%', open);
    }
    tokens.add(new Token(Kind.EOF, "", src.length()));
  }

  private int nextTag(int from) {
    int i = from;
    while ((i = src.indexOf('{', i)) >= 0 && i + 1 < src.length()) {
      char c = src.charAt(i + 1);
      if (c == '{' || c == '%' || c == '#') {
        return i;
      }
      i++;
    }
    return -1;
  }

  private void text(String text) {
    if (stripNextText) {
      text = text.stripLeading();
      stripNextText = false;
    }
    if (!text.isEmpty()) {
      tokens.add(new Token(Kind.TEXT, text, pos));
    }
  }

  /** Drops the spaces and tabs before a block tag at {@code open} when nothing else is on its line in the source. */
  private String lstripBlock(String text, int open) {
    int lineStart = src.lastIndexOf('\n', open - 1) + 1;
    if (lineStart < pos) {
      return text; // the line holds an earlier tag
    }
    for (int i = lineStart; i < open; i++) {
      if (src.charAt(i) != ' ' && src.charAt(i) != '\t') {
        return text;
      }
    }
    return text.substring(0, lineStart - pos);
  }

  /** Moves past a closing delimiter at {@code end} ({@code X}} for X = closer), applying the whitespace rules. */
  private void afterClose(int end, char closer) {
    boolean dash = end > 0 && src.charAt(end - 1) == '-';
    pos = end + 2;
    if (dash) {
      stripNextText = true;
    } else if (closer != '}') {
      if (src.startsWith("\r\n", pos)) {
        pos += 2;
      } else if (src.startsWith("\n", pos)) {
        pos++;
      }
    }
  }

  private void expression(char closer, int open) {
    int depth = 0;
    while (true) {
      skipSpaces();
      if (pos >= src.length()) {
        throw error("a tag is not closed", open);
      }
      char c = src.charAt(pos);
      boolean dashClose = c == '-' && src.startsWith(closer + "}", pos + 1);
      if (depth == 0 && (dashClose || (c == closer && src.startsWith("}", pos + 1)))) {
        int end = dashClose ? pos + 1 : pos;
        tokens.add(new Token(closer == '}' ? Kind.EXPR_CLOSE : Kind.STMT_CLOSE, closer + "}", end));
        afterClose(end, closer);
        return;
      }
      if (c == '\'' || c == '"') {
        string(c);
      } else if (Character.isDigit(c)) {
        number();
      } else if (Character.isLetter(c) || c == '_') {
        int start = pos;
        while (pos < src.length() && (Character.isLetterOrDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
          pos++;
        }
        tokens.add(new Token(Kind.NAME, src.substring(start, pos), start));
      } else {
        String op = operator();
        depth += op.equals("{") || op.equals("[") || op.equals("(") ? 1 : 0;
        depth -= (op.equals("}") || op.equals("]") || op.equals(")")) && depth > 0 ? 1 : 0;
        tokens.add(new Token(Kind.OP, op, pos));
        pos += op.length();
      }
    }
  }

  private void skipSpaces() {
    while (pos < src.length() && Character.isWhitespace(src.charAt(pos))) {
      pos++;
    }
  }

  private String operator() {
    for (String op : OPERATORS) {
      if (src.startsWith(op, pos)) {
        return op;
      }
    }
    throw error("unexpected character '" + src.charAt(pos) + "'", pos);
  }

  private void number() {
    int start = pos;
    boolean isFloat = false;
    while (pos < src.length()) {
      char c = src.charAt(pos);
      if (Character.isDigit(c) || c == '_') {
        pos++;
      } else if (c == '.' && !isFloat && pos + 1 < src.length() && Character.isDigit(src.charAt(pos + 1))) {
        isFloat = true;
        pos++;
      } else if ((c == 'e' || c == 'E') && pos + 1 < src.length()
          && (Character.isDigit(src.charAt(pos + 1)) || src.charAt(pos + 1) == '-' || src.charAt(pos + 1) == '+')) {
        isFloat = true;
        pos += 2;
      } else {
        break;
      }
    }
    tokens.add(new Token(isFloat ? Kind.FLOAT : Kind.INT, src.substring(start, pos).replace("_", ""), start));
  }

  private void string(char quote) {
    int start = pos++;
    StringBuilder b = new StringBuilder();
    while (true) {
      if (pos >= src.length()) {
        throw error("a string is not closed", start);
      }
      char c = src.charAt(pos++);
      if (c == quote) {
        break;
      }
      if (c != '\\' || pos >= src.length()) {
        b.append(c);
        continue;
      }
      char e = src.charAt(pos++);
      switch (e) {
        case 'n' -> b.append('\n');
        case 't' -> b.append('\t');
        case 'r' -> b.append('\r');
        case 'b' -> b.append('\b');
        case 'f' -> b.append('\f');
        case '0' -> b.append('\0');
        case 'u', 'x' -> {
          int len = e == 'u' ? 4 : 2;
          if (pos + len > src.length()) {
            throw error("a bad escape in a string", pos);
          }
          try {
            b.append((char) Integer.parseInt(src.substring(pos, pos + len), 16));
          } catch (NumberFormatException ex) {
            throw error("a bad escape in a string", pos);
          }
          pos += len;
        }
        case '\\', '\'', '"' -> b.append(e);
        case '\n' -> {
          // a backslash before a newline joins the lines, as in Python
        }
        default -> b.append('\\').append(e);
      }
    }
    tokens.add(new Token(Kind.STRING, b.toString(), start));
  }

  private TemplateException error(String what, int at) {
    int line = 1;
    for (int i = 0; i < at && i < src.length(); i++) {
      line += src.charAt(i) == '\n' ? 1 : 0;
    }
    return new TemplateException("template syntax error at line " + line + ": " + what);
  }
}
