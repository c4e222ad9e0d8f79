package dev.delayedtasks.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The jar's public names against {@code conformance/vocabulary.json}, both ways: every name the
 * file gives Java exists (pending ones excepted), and every public top-level class of the client's
 * packages, every public method of {@link DelayedTasksClient} and every {@link ErrorCode} is
 * listed.
 */
class VocabularyTest {
  private static final List<String> PACKAGES =
      List.of(
          "dev.delayedtasks.client",
          "dev.delayedtasks.client.callback",
          "dev.delayedtasks.client.worker");

  private static JsonNode vocabulary;
  private static JsonNode lang;
  private static Set<String> pending;

  @BeforeAll
  static void load() throws IOException {
    Path file =
        Path.of(System.getProperty("vocabulary.file", "../../../conformance/vocabulary.json"));
    vocabulary = new ObjectMapper().readTree(Files.readString(file));
    lang = vocabulary.path("languages").path("java");
    pending = new HashSet<>();
    for (JsonNode p : vocabulary.path("pending")) {
      boolean landed = false;
      for (JsonNode l : p.path("landed")) {
        landed |= l.asText().equals("java");
      }
      if (!landed) {
        pending.add(p.path("kind").asText() + ":" + p.path("name").asText());
      }
    }
  }

  /** Java name -> the canonical entry it spells, the absent ones left out. */
  private static Map<String, String> expected(String kind, UnaryOperator<String> spell) {
    Map<String, String> out = new LinkedHashMap<>();
    for (JsonNode node : vocabulary.path(kind + "s")) {
      String name = node.asText();
      if (lang.path("absent").has(name)) {
        continue;
      }
      JsonNode renamed = lang.path("renamed").path(name).path("names");
      List<String> spelled = new ArrayList<>();
      renamed.forEach(n -> spelled.add(n.asText()));
      if (spelled.isEmpty()) {
        spelled.add(spell.apply(name));
      }
      spelled.forEach(s -> out.put(s, kind + ":" + name));
    }
    return out;
  }

  private static Set<String> keys(JsonNode object) {
    Set<String> out = new TreeSet<>();
    object.fieldNames().forEachRemaining(out::add);
    out.remove("$comment");
    return out;
  }

  private static void compare(String what, Set<String> got, Map<String, String> want) {
    Set<String> missing = new TreeSet<>();
    want.forEach(
        (name, canonical) -> {
          if (!got.contains(name) && !pending.contains(canonical)) {
            missing.add(name);
          }
        });
    Set<String> unlisted = new TreeSet<>(got);
    unlisted.removeAll(want.keySet());
    assertEquals(Set.of(), missing, what + " the vocabulary lists but the jar lacks");
    assertEquals(Set.of(), unlisted, what + " the jar has but conformance/vocabulary.json lacks");
  }

  /** The public top-level classes of the client's packages, read from the compiled classes. */
  private static Set<String> publicClasses() throws IOException, URISyntaxException {
    Set<String> out = new TreeSet<>();
    // The main classes' root (target/classes), not the test classes' of the same package.
    URL root = DelayedTasksClient.class.getProtectionDomain().getCodeSource().getLocation();
    for (String pkg : PACKAGES) {
      Path dir = Path.of(root.toURI()).resolve(pkg.replace('.', '/'));
      try (Stream<Path> files = Files.list(dir)) {
        for (Path file : files.collect(Collectors.toList())) {
          String name = file.getFileName().toString();
          if (!name.endsWith(".class") || name.contains("$") || name.startsWith("package-info")) {
            continue;
          }
          String simple = name.substring(0, name.length() - ".class".length());
          try {
            Class<?> type = Class.forName(pkg + "." + simple);
            if (Modifier.isPublic(type.getModifiers())) {
              out.add(simple);
            }
          } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
          }
        }
      }
    }
    return out;
  }

  @Test
  void publicClassesAreTheVocabularyBothWays() throws Exception {
    Set<String> exceptions = new HashSet<>();
    vocabulary.path("exceptionTypes").forEach(n -> exceptions.add(n.asText()));
    Map<String, String> want =
        expected(
            "type",
            name -> exceptions.contains(name) ? name.replaceAll("Error$", "Exception") : name);
    keys(lang.path("only")).forEach(name -> want.put(name, "only:" + name));
    Set<String> got = publicClasses();
    compare("classes", got, want);
  }

  @Test
  void clientMethodsAreTheVocabularysVerbs() {
    Set<String> verbs =
        Arrays.stream(DelayedTasksClient.class.getDeclaredMethods())
            .filter(
                m -> Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()))
            .map(Method::getName)
            .collect(Collectors.toCollection(TreeSet::new));
    Map<String, String> want = expected("verb", name -> name);
    keys(lang.path("onlyVerbs")).forEach(name -> want.put(name, "only:" + name));
    compare("DelayedTasksClient methods", verbs, want);
  }

  @Test
  void errorCodesAreTheVocabularysCodes() {
    Set<String> codes =
        Arrays.stream(ErrorCode.values())
            .map(Enum::name)
            .collect(Collectors.toCollection(TreeSet::new));
    compare("ErrorCode constants", codes, expected("errorCode", name -> name));
  }

  @Test
  void overlapPolicyPrintsTheWireName() {
    for (OverlapPolicy policy : OverlapPolicy.values()) {
      assertEquals(policy.wireName(), policy.toString());
    }
    assertEquals("skip", String.valueOf(OverlapPolicy.SKIP));
  }
}
